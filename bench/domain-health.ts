// `npm run bench:domain-health`: the health job's whole run (runHealthChecks: read the domains,
// check them, store each report, its history row and any change's events) on BENCH_DOMAINS
// (1,000) domains against the local DNS fake, with at most BENCH_CONCURRENCY (64, the job's
// bound) DNS queries in flight, against a bare loop that sends the same questions (each name and
// type the checks asked) through a bare node:dns Resolver with the same bound and does nothing
// with the answers. Goal (issue 38): at most 1.3x the bare loop.
//
// Fair and steady on a shared machine (decision 0100): BENCH_ROUNDS (7) rounds, each running the
// job, the checks alone (no storing: where the time goes) and the bare loop back to back, in an
// order that rotates every round; the ratio is the median of the rounds' own ratios (each
// compares runs seconds apart, under the same load), beside the medians of each side. The load
// average is printed with the figures; CPU time is this process's (the database's is its own).
import { Resolver } from 'node:dns/promises'
import { loadavg } from 'node:os'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { startFakeDns, type Zone } from '../tests/fakes/dns/server.ts'
import { startBenchDatabase } from './database.ts'

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const GOAL = 1.3
// the job's own defaults unless set (to compare pool sizes and write sizes on one machine)
const POOL = process.env.BENCH_POOL ? Number(process.env.BENCH_POOL) : undefined
const STORE_MIN = process.env.BENCH_STORE_MIN ? Number(process.env.BENCH_STORE_MIN) : undefined

// a realistic mix: most healthy, some without DMARC, some over the SPF lookup limit, a few listed
const zone: Zone = {
	'_spf.google.com': { TXT: ['v=spf1 include:_netblocks.google.com ~all'] },
	'_netblocks.google.com': { TXT: ['v=spf1 ip4:35.190.247.0/24 ~all'] },
	'smtp.google.com': { A: ['142.250.27.26'] },
}
const names = Array.from({ length: DOMAINS }, (_, i) => `bench-${i}.test`)
names.forEach((name, i) => {
	zone[name] = {
		A: [`198.51.${Math.floor(i / 250)}.${i % 250}`],
		MX: [{ priority: 1, exchange: 'smtp.google.com' }],
		TXT: [
			i % 10 === 3
				? 'v=spf1 include:_spf.google.com a mx a:x mx:y a:z mx:w a:v mx:u a:t ~all'
				: 'v=spf1 include:_spf.google.com ~all',
		],
	}
	if (i % 7 !== 0) zone[`_dmarc.${name}`] = { TXT: [`v=DMARC1; p=none; rua=mailto:d@${name}`] }
	zone[`google._domainkey.${name}`] = { TXT: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0B'] }
	if (i % 50 === 0) zone[`${name}.dbl.spamhaus.org`] = { A: ['127.0.1.2'] }
})
const dns = await startFakeDns(zone)
const pg = await startBenchDatabase('domain-health', { DNS_SERVERS: dns.server })

const load = () =>
	loadavg()
		.map((n) => n.toFixed(1))
		.join(' ')
const median = (xs: number[]) => {
	const s = xs.toSorted((a, b) => a - b)
	const mid = Math.floor(s.length / 2)
	return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

// garbage collections, counted and timed per run (decision 0105 suspected them: they are small)
let gcCount = 0
let gcMs = 0
new PerformanceObserver((list) => {
	for (const entry of list.getEntries()) {
		gcCount++
		gcMs += entry.duration
	}
}).observe({ entryTypes: ['gc'] })

/**
 * Wall and CPU time (this process) of one run, its garbage collections, and the time its event
 * loop sat idle (waiting on the database: the job's reads and its last write; never the fake DNS,
 * which answers in this process).
 */
async function timed<T>(run: () => Promise<T>) {
	const cpu = process.cpuUsage()
	const [count, spent] = [gcCount, gcMs]
	const elu = performance.eventLoopUtilization()
	const start = performance.now()
	const value = await run()
	const idleMs = performance.eventLoopUtilization(elu).idle
	const ms = performance.now() - start
	const used = process.cpuUsage(cpu)
	// the observer hears of the last collections a tick later
	await new Promise((resolve) => setImmediate(resolve))
	return {
		ms,
		cpuMs: (used.user + used.system) / 1000,
		sysMs: used.system / 1000,
		gcs: gcCount - count,
		gcMs: gcMs - spent,
		idleMs,
		value,
	}
}

try {
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { insertUser } = await import('../tests/support/factories.ts')
	const { checkDomains } = await import('../app/services/domain-health/checks.server.ts')
	const { createDnsClient } = await import('../app/services/domain-health/dns.server.ts')
	const { runHealthChecks } = await import('../app/services/domain-health/health.server.ts')

	// the domains, each with a Google inbox (the SPF include and DKIM selector checked)
	const user = await insertUser(db)
	const ids: string[] = []
	for (let i = 0; i < DOMAINS; i += 500) {
		const rows = await db
			.insertInto('domains')
			.values(
				names.slice(i, i + 500).map((name) => ({ user_id: user.id, name, source: 'imported' })),
			)
			.returning(['id', 'name'])
			.execute()
		await db
			.insertInto('inboxes')
			.values(
				rows.map((r) => ({
					user_id: user.id,
					domain_id: r.id,
					address: `ada@${r.name}`,
					provider: 'google',
				})),
			)
			.execute()
		ids.push(...rows.map((r) => r.id))
	}

	const client = () => createDnsClient({ servers: [dns.server], concurrency: CONCURRENCY })
	let questions: { type: string; name: string }[] = []
	let lastClient = client()
	let failing = 0

	const job = () =>
		timed(async () => {
			lastClient = client()
			const checked = await runHealthChecks(ids, {
				db,
				dns: lastClient,
				pool: POOL,
				storeMin: STORE_MIN,
			})
			failing = checked.filter((c) => c.status === 'failing').length
		})
	const checksAlone = () =>
		timed(() =>
			checkDomains(
				client(),
				names.map((name) => ({ name })),
				() => ({ provider: 'google' }),
				{ pool: POOL },
			),
		)
	const bare = () =>
		timed(async () => {
			const resolver = new Resolver({ timeout: 1500, tries: 2 })
			resolver.setServers([dns.server])
			let next = 0
			await Promise.all(
				Array.from({ length: CONCURRENCY }, async () => {
					while (next < questions.length) {
						const { type, name } = questions[next++]!
						await resolver.resolve(name, type).catch(() => null)
					}
				}),
			)
		})

	// warm up every path (JIT, sockets, the database's caches); the job first: its questions are
	// the bare loop's (each distinct name and type it asked; the same in every run)
	await job()
	questions = lastClient.asked()
	await checksAlone()
	await bare()
	const loadBefore = load()
	const sides = { job, checks: checksAlone, bare } as const
	// BENCH_ONLY (job, checks or bare): one side's rounds alone, for a CPU profile of it
	const only = process.env.BENCH_ONLY as keyof typeof sides | undefined
	const order = only ? [only] : (Object.keys(sides) as (keyof typeof sides)[])
	const results: Record<
		keyof typeof sides,
		{ ms: number; cpuMs: number; sysMs: number; gcs: number; gcMs: number; idleMs: number }[]
	> = {
		job: [],
		checks: [],
		bare: [],
	}
	for (let round = 0; round < ROUNDS; round++) {
		for (let k = 0; k < order.length; k++) {
			const side = order[(round + k) % order.length]!
			results[side].push(await sides[side]())
		}
	}
	const ms = (side: keyof typeof sides) =>
		`${median(results[side].map((r) => r.ms)).toFixed(0)} ms (CPU ${median(results[side].map((r) => r.cpuMs)).toFixed(0)} ms; ${median(results[side].map((r) => r.gcs))} collections, ${median(results[side].map((r) => r.gcMs)).toFixed(0)} ms; idle ${median(results[side].map((r) => r.idleMs)).toFixed(0)} ms; sys ${median(results[side].map((r) => r.sysMs)).toFixed(0)} ms)`
	if (only) console.log(`${only} alone, median of ${ROUNDS} runs: ${ms(only)}`)
	else report()
	await db.destroy()

	function report() {
		const ratios = results.job.map((r, i) => r.ms / results.bare[i]!.ms)
		const checkRatios = results.checks.map((r, i) => r.ms / results.bare[i]!.ms)
		const ratio = median(ratios)
		console.log(
			[
				`domains: ${DOMAINS}, DNS queries per run: ${questions.length} (sent: ${lastClient.sent()}), in flight at most ${lastClient.peak()} (bound ${CONCURRENCY})`,
				`failing domains found: ${failing}; pool ${POOL ?? 'default'}, least reports a write ${STORE_MIN ?? 'default'}`,
				`load average (1, 5, 15 min): ${loadBefore} before the rounds, ${load()} after`,
				`medians of ${ROUNDS} interleaved rounds:`,
				`  health job (check and store): ${ms('job')}`,
				`  checks alone (no storing):    ${ms('checks')}`,
				`  bare loop, same queries:      ${ms('bare')}`,
				...(['job', 'checks', 'bare'] as const).map(
					(side) =>
						`rounds' ms, ${side}: ${results[side].map((r) => r.ms.toFixed(0)).join(' ')} (CPU ${results[side].map((r) => r.cpuMs.toFixed(0)).join(' ')})`,
				),
				`rounds' ratios, job / bare: ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
				`rounds' ratios, checks alone / bare: ${checkRatios.map((r) => r.toFixed(2)).join(' ')}`,
				`checks alone / bare (median of rounds): ${median(checkRatios).toFixed(2)}x (the checks without reading or storing)`,
				`ratio (median of rounds): ${ratio.toFixed(2)}x (goal: at most ${GOAL}x) ${ratio <= GOAL ? 'OK' : 'OVER'}`,
			].join('\n'),
		)
		if (ratio > GOAL) process.exitCode = 1
	}
} finally {
	await dns.close()
	await pg.stop()
}
