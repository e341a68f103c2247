// `npm run bench`: requests per second and p50/p99 latency of a signed-in GET / and of
// GET /signin against the framework ceiling (bench/framework: a minimal React Router app
// serving the same pages from the same element tree, no middleware, no database) and a bare
// node:http server answering the page as a string, measured in the same run on the same
// machine, and the web process's memory (RSS) before, at its peak during and after the load.
// Needs a build (`npm run build`); builds the ceiling itself.
//
// The app and the ceiling are measured in alternating rounds (app first, then the ceiling first,
// ...): on this shared machine the load changes from one window to the next, and one long run
// of each met different machines (decision 0049).
//
// BENCH_SECONDS (10: per page and server, split into BENCH_ROUNDS rounds, by default one per
// 10 s), BENCH_CONNECTIONS (50), BENCH_WARM_UP_SECONDS (3, before each page's first round);
// BENCH_PORT and BENCH_DB_PORT pick the ports (the
// app, the ceiling, the bare server: BENCH_PORT..+2) instead of free ones; BENCH_SERVER_FLAGS are
// node flags for the app (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof), BENCH_CEILING_FLAGS for the ceiling.
//
// The ceiling runs under the web process's memory limits (memory-limits.server.ts), as the app
// does: with Node's defaults its young generation grows to 64 MB semi-spaces and its RSS past the
// 300 MB the app is held to (decision 0052). BENCH_CEILING_NODE_DEFAULTS=1 runs it without them.
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import http from 'node:http'
import path from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../tests/support/free-port.ts'
import { missingMemoryLimits } from '../app/server/memory-limits.server.ts'
import { childrenCpuMs, cpuMsOf } from './cpu.ts'
import { seedAccount } from './seed.ts'
import { signUp, startWebProcess, waitFor } from './web-process.ts'

const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 3)
// rounds of about 10 s each (at least one), app and ceiling alternating: shorter ones measure
// autocannon opening its 50 connections in their p99
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? Math.max(1, Math.round(DURATION / 10)))
const ROUND_SECONDS = DURATION / ROUNDS
const portBase = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : null
const nextPort = (offset: number) => (portBase ? Promise.resolve(portBase + offset) : freePort())
const dbPortGiven = process.env.BENCH_DB_PORT ? Number(process.env.BENCH_DB_PORT) : null

buildCeiling()
const { app, base, databaseUrl, dataDir, reused } = await startWebProcess({
	name: 'request',
	port: await nextPort(0),
	dbPort: dbPortGiven ?? undefined,
	nodeFlags: process.env.BENCH_SERVER_FLAGS?.split(/\s+/).filter(Boolean),
})
const ceilingPort = await nextPort(1)
const barePort = await nextPort(2)
const ceilingBase = `http://127.0.0.1:${ceilingPort}`
const ceilingFlags = process.env.BENCH_CEILING_FLAGS?.split(/\s+/).filter(Boolean) ?? []
const ceilingLimits = process.env.BENCH_CEILING_NODE_DEFAULTS
	? { flags: [], env: {} }
	: missingMemoryLimits(ceilingFlags, process.env)
const ceiling = spawn(
	process.execPath,
	[...ceilingLimits.flags, ...ceilingFlags, 'bench/framework/server.ts'],
	{
		env: {
			...process.env,
			...ceilingLimits.env,
			NODE_ENV: 'production',
			PORT: String(ceilingPort),
		},
		stdio: ['ignore', 'ignore', 'inherit'],
	},
)

try {
	await waitFor(`${base}/healthz`)
	await waitFor(`${ceilingBase}/signin`)
	const cookie = await signUpAndSubscribe()
	const body = await pageOf(`${base}/`, cookie)
	const texts = {
		app: body,
		ceiling: await pageOf(`${ceilingBase}/`),
		appSignIn: await pageOf(`${base}/signin`),
		ceilingSignIn: await pageOf(`${ceilingBase}/signin`),
	}
	const pages = Object.fromEntries(
		Object.entries(texts).map(([name, text]) => [name, Buffer.byteLength(text)]),
	) as Record<keyof typeof texts, number>
	// elements rendered (start tags): the same size can hide a different tree
	const elements = Object.fromEntries(
		Object.entries(texts).map(([name, text]) => [name, text.match(/<[a-zA-Z]/g)?.length ?? 0]),
	) as Record<keyof typeof texts, number>
	if (process.env.BENCH_PAGES_DIR) {
		mkdirSync(process.env.BENCH_PAGES_DIR, { recursive: true })
		for (const [name, text] of Object.entries(texts))
			writeFileSync(path.join(process.env.BENCH_PAGES_DIR, `${name}.html`), text)
	}
	// The ceiling is a copy of the pages' markup: it must still be about the same page.
	for (const [name, unit, app, ceiling] of [
		['GET /', 'bytes', pages.app, pages.ceiling],
		['GET /signin', 'bytes', pages.appSignIn, pages.ceilingSignIn],
		['GET /', 'elements', elements.app, elements.ceiling],
		['GET /signin', 'elements', elements.appSignIn, elements.ceilingSignIn],
	] as const) {
		if (Math.abs(app - ceiling) > 0.15 * app) {
			console.warn(
				`${name}: the ceiling's page has ${ceiling} ${unit}, the app's ${app}: run npm run bench:ceiling (the layout) or copy the page's markup into bench/framework again (bench/framework/README.md).`,
			)
		}
	}
	const rssBefore = memoryOf(app.pid!)

	const bare = http.createServer((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
		res.end(body)
	})
	await new Promise<void>((resolve) => bare.listen(barePort, '127.0.0.1', resolve))

	// VmRSS sampled through the load; VmHWM is the kernel's own peak since start.
	let rssPeak = rssBefore.rssMb
	let ceilingRssPeak = 0
	const sampler = setInterval(() => {
		rssPeak = Math.max(rssPeak, memoryOf(app.pid!).rssMb)
		ceilingRssPeak = Math.max(ceilingRssPeak, memoryOf(ceiling.pid!).rssMb)
	}, 250)
	// The app and its ceiling in alternating rounds, so the machine's load, which changes within
	// seconds here, falls on both alike.
	const [signedIn, signedInCeiling] = await measurePair(
		{ url: `${base}/`, headers: { cookie }, pid: app.pid },
		{ url: `${ceilingBase}/`, headers: {}, pid: ceiling.pid },
	)
	const [signIn, signInCeiling] = await measurePair(
		{ url: `${base}/signin`, headers: {}, pid: app.pid },
		{ url: `${ceilingBase}/signin`, headers: {}, pid: ceiling.pid },
	)
	clearInterval(sampler)
	const rssAfter = memoryOf(app.pid!)
	const baseline = await measureStatic(`http://127.0.0.1:${barePort}/`)
	bare.close()
	// The same process after the baseline's run: idle, does it give memory back?
	const rssIdle = memoryOf(app.pid!)
	const memory = {
		rssBeforeMb: rssBefore.rssMb,
		rssPeakMb: Math.max(rssPeak, rssAfter.rssMb),
		rssAfterMb: rssAfter.rssMb,
		rssIdleMb: rssIdle.rssMb,
		highWaterMarkMb: rssIdle.hwmMb,
		ceilingRssPeakMb: ceilingRssPeak,
		ceilingFlags: [...ceilingLimits.flags, ...ceilingFlags],
		loadAverage: loadavg().map((n) => Number(n.toFixed(1))),
	}

	const ratio = (a: number, b: number) => Number((a / b).toFixed(3))
	// Each round of the app against the ceiling's round next to it, and the median of those
	// pairs: the load here changes within seconds, and a pair shares most of it.
	const pairs = (app: Measured, ceiling: Measured, of: (round: Round) => number) =>
		app.rounds.map((r, i) => of(r) / of(ceiling.rounds[i]!))
	const roundRatios = (app: Measured, ceiling: Measured) =>
		pairs(app, ceiling, (r) => r.requests)
			.map((r) => r.toFixed(2))
			.join(' ')
	const throughputRatio = (app: Measured, ceiling: Measured) =>
		ratio(median(pairs(app, ceiling, (r) => r.requests)), 1)
	const p99Ratio = (app: Measured, ceiling: Measured) =>
		ratio(median(pairs(app, ceiling, (r) => r.p99)), 1)
	const result = {
		date: new Date().toISOString(),
		pageBytes: pages,
		pageElements: elements,
		durationSeconds: DURATION,
		rounds: ROUNDS,
		connections: CONNECTIONS,
		signedInGet: signedIn,
		signedInGetCeiling: signedInCeiling,
		signInGet: signIn,
		signInGetCeiling: signInCeiling,
		staticBaseline: baseline,
		ratio: ratio(signedIn.requestsPerSecond, baseline.requestsPerSecond),
		ratioVsFramework: {
			signedInGet: throughputRatio(signedIn, signedInCeiling),
			signedInGetP99: p99Ratio(signedIn, signedInCeiling),
			signInGet: throughputRatio(signIn, signInCeiling),
			signInGetP99: p99Ratio(signIn, signInCeiling),
			// the ceiling's CPU time per answer over the app's: the ratio a quiet machine would show
			signedInGetCpu: ratio(signedInCeiling.cpuMsPerRequest!, signedIn.cpuMsPerRequest!),
			signInGetCpu: ratio(signInCeiling.cpuMsPerRequest!, signIn.cpuMsPerRequest!),
			// the same, counting the database's CPU too (the ceiling has none): on one machine
			// both compete for the same cores
			signedInGetCpuWithDatabase: ratio(
				signedInCeiling.cpuMsPerRequest!,
				signedIn.cpuMsPerRequest! + signedIn.dbCpuMsPerRequest!,
			),
		},
		memory,
	}
	console.log(JSON.stringify(result, null, 2))
	const line = (
		name: string,
		m: Pick<Measured, 'requestsPerSecond' | 'p50' | 'p99'> &
			Partial<Pick<Measured, 'cpuMsPerRequest' | 'dbCpuMsPerRequest'>>,
	) =>
		`${name}: ${m.requestsPerSecond} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms` +
		(m.cpuMsPerRequest == null ? '' : `, ${m.cpuMsPerRequest} ms CPU/answer`) +
		(m.dbCpuMsPerRequest ? ` (+ ${m.dbCpuMsPerRequest} ms database)` : '')
	console.log(
		[
			`${line('signed-in GET /', signedIn)} | ${line('framework', signedInCeiling)} | ` +
				`ratio vs framework ${result.ratioVsFramework.signedInGet} (goal >= 0.7), ` +
				`p99 ${result.ratioVsFramework.signedInGetP99}x (goal <= 1.5), ` +
				`CPU ratio ${result.ratioVsFramework.signedInGetCpu} ` +
				`(${result.ratioVsFramework.signedInGetCpuWithDatabase} with the database's)`,
			`${line('GET /signin', signIn)} | ${line('framework', signInCeiling)} | ` +
				`ratio vs framework ${result.ratioVsFramework.signInGet} (goal >= 0.85), ` +
				`p99 ${result.ratioVsFramework.signInGetP99}x (goal <= 1.5), ` +
				`CPU ratio ${result.ratioVsFramework.signInGetCpu}`,
			`${line('static page', baseline)} | signed-in GET / ratio vs static ${result.ratio}`,
			`rounds of ${ROUND_SECONDS} s, app/framework req/s ratio in each: ` +
				`GET / ${roundRatios(signedIn, signedInCeiling)}; /signin ${roundRatios(signIn, signInCeiling)}`,
		].join('\n'),
	)
	console.log(
		`web process RSS: ${memory.rssBeforeMb} MB before, ${memory.rssPeakMb} MB peak, ` +
			`${memory.rssAfterMb} MB after, ${memory.rssIdleMb} MB idle | ` +
			`ceiling's RSS peak ${memory.ceilingRssPeakMb} MB (${memory.ceilingFlags.join(' ') || "Node's defaults"}) | ` +
			`load average ${memory.loadAverage.join(' ')}`,
	)
	mkdirSync('bench/results', { recursive: true })
	writeFileSync(`bench/results/request-${Date.now()}.json`, JSON.stringify(result, null, 2))
} finally {
	ceiling.kill('SIGTERM')
	app.kill('SIGTERM')
	await new Promise((resolve) => app.once('exit', resolve))
	if (!reused) rmSync(dataDir, { recursive: true, force: true })
}

/**
 * `react-router build` of the ceiling, on every run (under 3 s): it is built from its own
 * config and from the app's components, so a build kept from before a change to either would
 * measure another ceiling.
 */
function buildCeiling() {
	execFileSync(process.execPath, ['node_modules/.bin/react-router', 'build', 'bench/framework'], {
		stdio: ['ignore', 'ignore', 'inherit'],
		env: { ...process.env, NODE_ENV: 'production' },
	})
}

async function pageOf(url: string, cookie?: string) {
	const response = await fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' })
	if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`)
	return response.text()
}

type Target = { url: string; headers: Record<string, string>; pid: number | undefined }
type Round = { requests: number; p50: number; p99: number; cpuMs: number; dbCpuMs: number }
type Measured = {
	requestsPerSecond: number
	p50: number
	p99: number
	total: number
	cpuMsPerRequest: number | null
	dbCpuMsPerRequest: number | null
	rounds: Round[]
}

/**
 * The app and its baseline under the same load in alternating rounds (app first, then the
 * baseline first, ...), each round BENCH_SECONDS / rounds long: figures of one target over all
 * its rounds, with each round's latency kept to pair them up.
 */
async function measurePair(app: Target, baseline: Target) {
	const rounds: [Round[], Round[]] = [[], []]
	// Not measured: a server that has been serving is warm (V8's compiled code, the pool's
	// connections, and each connection's plans of its prepared statements: PostgreSQL plans the
	// first five calls afresh and then reuses one plan).
	for (const target of [app, baseline]) {
		await autocannon({
			url: target.url,
			headers: target.headers,
			connections: CONNECTIONS,
			duration: WARM_UP_SECONDS,
		})
	}
	for (let round = 0; round < ROUNDS; round++) {
		const order = round % 2 === 0 ? [0, 1] : [1, 0]
		for (const which of order) {
			rounds[which]!.push(await measureRound(which === 0 ? app : baseline))
		}
	}
	return [measure(rounds[0]), measure(rounds[1], baseline.pid)] as const
	function measure(of: Round[], pid = app.pid): Measured {
		const total = of.reduce((sum, r) => sum + r.requests, 0)
		const cpuMs = of.reduce((sum, r) => sum + r.cpuMs, 0)
		const dbCpuMs = of.reduce((sum, r) => sum + r.dbCpuMs, 0)
		return {
			requestsPerSecond: Math.round(total / (ROUND_SECONDS * of.length)),
			// medians of the rounds' own percentiles
			p50: median(of.map((r) => r.p50)),
			p99: median(of.map((r) => r.p99)),
			total,
			cpuMsPerRequest: pid ? Number((cpuMs / Math.max(1, total)).toFixed(2)) : null,
			dbCpuMsPerRequest: pid ? Number((dbCpuMs / Math.max(1, total)).toFixed(2)) : null,
			rounds: of,
		}
	}
}

/**
 * One round of autocannon against `target`; with its pid, also the CPU time that process (and
 * its children: the embedded PostgreSQL) spent: on a machine others load too, throughput
 * swings, CPU per answer much less.
 */
async function measureRound({ url, headers, pid }: Target): Promise<Round> {
	const cpuBefore = pid ? cpuMsOf(pid) : 0
	const dbBefore = pid ? childrenCpuMs(pid) : new Map<number, number>()
	const result = await autocannon({
		url,
		headers,
		connections: CONNECTIONS,
		duration: ROUND_SECONDS,
	})
	const cpuMs = pid ? cpuMsOf(pid) - cpuBefore : 0
	// the embedded PostgreSQL's processes (the app's children): its backends serve this load too
	let dbCpuMs = 0
	for (const [child, ms] of pid ? childrenCpuMs(pid) : [])
		dbCpuMs += ms - (dbBefore.get(child) ?? 0)
	if (result.non2xx > 0 || result.errors > result.timeouts) {
		throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
	}
	// On a loaded machine a few answers take longer than autocannon's 10 s: count them, go on.
	if (result.timeouts > 0) console.warn(`${url}: ${result.timeouts} requests timed out`)
	return {
		requests: result.requests.total,
		p50: result.latency.p50,
		p99: result.latency.p99,
		cpuMs,
		dbCpuMs,
	}
}

/** The static page: no process of ours to measure, one run. */
async function measureStatic(url: string) {
	const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION })
	return {
		requestsPerSecond: Math.round(result.requests.average),
		p50: result.latency.p50,
		p99: result.latency.p99,
		total: result.requests.total,
	}
}

function median(values: number[]) {
	const sorted = [...values].sort((a, b) => a - b)
	const middle = Math.floor(sorted.length / 2)
	return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The web process's resident memory (and its peak so far), in MB, from /proc. */
function memoryOf(pid: number) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8')
	const kb = (field: string) =>
		Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1])
	return { rssMb: Math.round(kb('VmRSS') / 1024), hwmMb: Math.round(kb('VmHWM') / 1024) }
}

async function signUpAndSubscribe() {
	const email = `bench-${Date.now()}@example.com`
	const others = `bench-others-${Date.now()}@example.com`
	await signUp(base, others)
	const cookie = await signUp(base, email)
	const client = new pg.Client(databaseUrl)
	await client.connect()
	await client.query(
		`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
		 select id, 1, 'active', now(), now() + interval '30 days' from auth.users where email = $1`,
		[email],
	)
	// a finished onboarding, so / is the dashboard rather than a redirect to /onboarding
	await client.query(
		`insert into onboarding (user_id, answers, completed_at)
		 select id, '{}', now() from auth.users where email = $1`,
		[email],
	)
	// a working account's lists, jobs and credit reservations, among ten times as many of others
	await seedAccount(client, others, { scale: 10 })
	await seedAccount(client, email)
	await client.end()
	return cookie
}
