// `npm run bench`: requests per second and p50/p99 latency of a signed-in GET /
// against a bare node:http server answering a static page of the same size,
// measured in the same run on the same machine, and the web process's memory (RSS) before,
// at its peak during and after the load. Needs a build (`npm run build`).
import { spawn } from 'node:child_process'
import { mkdtempSync, chmodSync, rmSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../tests/support/free-port.ts'

const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

const dataDir = mkdtempSync(path.join(tmpdir(), 'leadsmith-bench-'))
chmodSync(dataDir, 0o755)
const port = await freePort()
const dbPort = await freePort()
const base = `http://127.0.0.1:${port}`
const app = spawn(process.execPath, ['server.ts'], {
	env: {
		...process.env,
		NODE_ENV: 'production',
		PORT: String(port),
		APP_URL: base,
		DATA_DIR: dataDir,
		EMBEDDED_POSTGRES_PORT: String(dbPort),
		LOG_LEVEL: 'warn',
		ADMIN_EMAIL: 'admin@bench.test',
		ADMIN_PASSWORD: 'bench-admin-1',
		AUTH_RATE_LIMIT_IP: '1000000',
	},
	stdio: ['ignore', 'inherit', 'inherit'],
})

try {
	await waitFor(`${base}/healthz`)
	const cookie = await signUpAndSubscribe()
	const page = await fetch(`${base}/`, { headers: { cookie }, redirect: 'manual' })
	if (page.status !== 200) throw new Error(`GET / answered ${page.status}`)
	const body = await page.text()
	const rssBefore = memoryOf(app.pid!)

	const bare = http.createServer((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
		res.end(body)
	})
	const barePort = await freePort()
	await new Promise<void>((resolve) => bare.listen(barePort, '127.0.0.1', resolve))

	// VmRSS sampled through the load; VmHWM is the kernel's own peak since start.
	let rssPeak = rssBefore.rssMb
	const sampler = setInterval(() => {
		rssPeak = Math.max(rssPeak, memoryOf(app.pid!).rssMb)
	}, 250)
	const signedIn = await measure(`${base}/`, { cookie })
	clearInterval(sampler)
	const rssAfter = memoryOf(app.pid!)
	const baseline = await measure(`http://127.0.0.1:${barePort}/`, {})
	bare.close()
	// The same process after the baseline's run: idle, does it give memory back?
	const rssIdle = memoryOf(app.pid!)
	const memory = {
		rssBeforeMb: rssBefore.rssMb,
		rssPeakMb: Math.max(rssPeak, rssAfter.rssMb),
		rssAfterMb: rssAfter.rssMb,
		rssIdleMb: rssIdle.rssMb,
		highWaterMarkMb: rssIdle.hwmMb,
		loadAverage: loadavg().map((n) => Number(n.toFixed(1))),
	}

	const result = {
		date: new Date().toISOString(),
		pageBytes: Buffer.byteLength(body),
		durationSeconds: DURATION,
		connections: CONNECTIONS,
		signedInGet: signedIn,
		staticBaseline: baseline,
		ratio: Number((signedIn.requestsPerSecond / baseline.requestsPerSecond).toFixed(4)),
		memory,
	}
	console.log(JSON.stringify(result, null, 2))
	console.log(
		`signed-in GET /: ${signedIn.requestsPerSecond} req/s, p50 ${signedIn.p50} ms, p99 ${signedIn.p99} ms | ` +
			`static: ${baseline.requestsPerSecond} req/s, p50 ${baseline.p50} ms, p99 ${baseline.p99} ms | ratio ${result.ratio}`,
	)
	console.log(
		`web process RSS: ${memory.rssBeforeMb} MB before, ${memory.rssPeakMb} MB peak, ` +
			`${memory.rssAfterMb} MB after, ${memory.rssIdleMb} MB idle | ` +
			`load average ${memory.loadAverage.join(' ')}`,
	)
	mkdirSync('bench/results', { recursive: true })
	writeFileSync(`bench/results/request-${Date.now()}.json`, JSON.stringify(result, null, 2))
} finally {
	app.kill('SIGTERM')
	await new Promise((resolve) => app.once('exit', resolve))
	rmSync(dataDir, { recursive: true, force: true })
}

async function measure(url: string, headers: Record<string, string>) {
	const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION })
	if (result.non2xx > 0 || result.errors > result.timeouts) {
		throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
	}
	// On a loaded machine a few answers take longer than autocannon's 10 s: count them, go on.
	if (result.timeouts > 0) console.warn(`${url}: ${result.timeouts} requests timed out`)
	return {
		requestsPerSecond: Math.round(result.requests.average),
		p50: result.latency.p50,
		p99: result.latency.p99,
		total: result.requests.total,
		timeouts: result.timeouts,
	}
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
	const response = await fetch(`${base}/signup`, {
		method: 'POST',
		body: new URLSearchParams({ fullName: 'Bench', email, password: 'bench-pass-1' }),
		redirect: 'manual',
	})
	const cookie = response.headers
		.getSetCookie()
		.map((c) => c.split(';')[0] ?? '')
		.filter((c) => c.startsWith('sb-'))
		.join('; ')
	if (!cookie) throw new Error(`sign-up gave no session (status ${response.status})`)
	const client = new pg.Client(`postgres://postgres:postgres@127.0.0.1:${dbPort}/postgres`)
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
	await client.end()
	return cookie
}

async function waitFor(url: string) {
	const deadline = Date.now() + 180_000
	while (Date.now() < deadline) {
		try {
			if ((await fetch(url)).ok) return
		} catch {
			// not up yet
		}
		await new Promise((r) => setTimeout(r, 250))
	}
	throw new Error(`${url} did not come up`)
}
