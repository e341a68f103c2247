// `npm run bench:verify`: a verification of BENCH_EMAILS (100,000) emails against the local
// MillionVerifier fake answering each check in BENCH_DELAY_MS (100 ms), with the key's rate
// limit (MILLIONVERIFIER_RATE_PER_SECOND, 160 a second by default, UNCONFIRMED in MillionVerifier's
// docs) shared through the database as in production (decision 0016). The floor is what the
// provider's limit allows: emails / min(rate, concurrency / delay) seconds; the run must end
// within 1.2x of it. Real processes, as in production: the start (estimate, run rows, credit
// hold, the job queued) in a process of the web's role, the job in `worker.ts` (its own memory
// limits, its fetch loop), against a real embedded PostgreSQL; each one's peak RSS (the
// kernel's VmHWM) is printed beside the times, with the load average. The fake runs in this
// process, apart from both. BENCH_EMAILS=10000 for a loaded machine (say so).
// Both of MillionVerifier's paths are measured, each against its own floor (BENCH_PATHS):
// `single`, a request an email (MILLIONVERIFIER_BULK_MIN=0 in the worker), against the key's
// rate; `bulk`, its bulk file API (files of 10,000, MILLIONVERIFIER_BULK_MIN=1), against the
// rate the provider works through an account's files at (BENCH_BULK_RATE, 500 emails a second,
// one file after the other: the fake's model; MillionVerifier documents no figure), so the
// floor is emails / that rate. Each path has its own account, list, worker and peak RSS.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import type { FakeMillionVerifier } from '../tests/fakes/millionverifier/server.ts'

const EMAILS = Number(process.env.BENCH_EMAILS ?? 100_000)
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 100)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 40)
const RATE = Number(process.env.BENCH_RATE ?? 160)
const BULK_RATE = Number(process.env.BENCH_BULK_RATE ?? 500)
const PATHS = (process.env.BENCH_PATHS ?? 'single,bulk').split(',').map((p) => p.trim())
const ROOT = path.join(import.meta.dirname, '..')

const load = () =>
	loadavg()
		.map((l) => l.toFixed(1))
		.join(' ')

if (process.argv[2] === '--web') await webRole(process.argv[3]!, process.argv[4]!)
else await main()

/** The web's part: the start of the run (what the "Verify now" form does), then its peak RSS. */
async function webRole(userId: string, listId: string) {
	const { db } = await import('../db/index.server.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { startVerification } = await import('../app/services/verification/verify-runs.server.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')
	const me = await loadAccountContext(db, { id: userId, email: 'bench@example.com' })
	const startedAt = performance.now()
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	const seconds = (performance.now() - startedAt) / 1000
	await stopBoss()
	await db.destroy()
	process.stdout.write(
		JSON.stringify({ runId, seconds, peakRssMb: process.resourceUsage().maxRSS / 1024 }),
	)
}

async function main() {
	const { startFakeMillionVerifier } = await import('../tests/fakes/millionverifier/server.ts')
	const { startBenchDatabase } = await import('./database.ts')
	const fake = await startFakeMillionVerifier()
	fake.setDelay(DELAY_MS)
	fake.setBulkRate(BULK_RATE)
	const pg = await startBenchDatabase('verify', {
		VERIFY_PROVIDER: 'millionverifier',
		MILLIONVERIFIER_BASE_URL: fake.url,
		MILLIONVERIFIER_BULK_URL: fake.bulkUrl,
		MILLIONVERIFIER_API_KEY: fake.apiKey,
		MILLIONVERIFIER_RATE_PER_SECOND: String(RATE),
		VERIFY_CONCURRENCY: String(CONCURRENCY),
		CREDITS_PER_VERIFICATION: '1',
	})
	try {
		const { db } = await import('../db/index.server.ts')
		const { migrateToLatest } = await import('../db/migrate.ts')
		await migrateToLatest(db)
		const lines = [
			`verify bench: ${EMAILS.toLocaleString('en')} emails a path, fake MillionVerifier ${DELAY_MS} ms per call, ${CONCURRENCY} in flight, key limit ${RATE}/s, files processed at ${BULK_RATE} emails/s`,
		]
		let within = true
		for (const path of PATHS) {
			if (path !== 'single' && path !== 'bulk') throw new Error(`BENCH_PATHS: ${path}?`)
			const result = await measure(path, fake)
			lines.push(...result.lines)
			within &&= result.within
		}
		lines.push(
			`goal (each path within 1.2x its floor, RSS under 300 MB): ${within ? 'met' : 'NOT met'}`,
		)
		console.log(lines.join('\n'))
		await db.destroy()
	} finally {
		await fake.close()
		await pg.stop()
	}
}

/** One path's run: its own account and list, the start in a web process, the job in a worker. */
async function measure(path: 'single' | 'bulk', fake: FakeMillionVerifier) {
	const { db } = await import('../db/index.server.ts')
	const { insertUser } = await import('../tests/support/factories.ts')
	const { grantCredits, getCreditBalance } =
		await import('../app/services/billing/credits.server.ts')
	const env = { ...process.env, MILLIONVERIFIER_BULK_MIN: path === 'single' ? '0' : '1' }
	let worker: ReturnType<typeof spawn> | null = null
	try {
		const user = await insertUser(db)
		await grantCredits(db, {
			accountId: user.id,
			amount: EMAILS,
			reason: 'admin',
			reference: 'bench',
		})
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: user.id, name: 'Bench', source_type: 'upload', status: 2, found: EMAILS })
			.returning('id')
			.executeTakeFirstOrThrow()
		for (let start = 0; start < EMAILS; start += 5000)
			await db
				.insertInto('leads')
				.values(
					Array.from({ length: Math.min(5000, EMAILS - start) }, (_, k) => ({
						list_id: list.id,
						user_id: user.id,
						email: `${(start + k) % 10 === 0 ? 'invalid' : 'valid'}${start + k}@${path}.example.com`,
					})),
				)
				.execute()
		const checksBefore = fake.checks.length
		const filesBefore = fake.files.size
		const singlesBefore = fake.calls.filter((c) => c.startsWith('GET /api/v3')).length
		const loadBefore = load()

		// the web's part, in its own process
		const web = await new Promise<{ runId: string; seconds: number; peakRssMb: number }>(
			(resolve, reject) => {
				const child = spawn(process.execPath, [import.meta.filename, '--web', user.id, list.id], {
					cwd: ROOT,
					env,
					stdio: ['ignore', 'pipe', 'inherit'],
				})
				let out = ''
				child.stdout.on('data', (d: Buffer) => (out += d.toString()))
				child.on('exit', (code) =>
					code === 0
						? resolve(JSON.parse(out) as { runId: string; seconds: number; peakRssMb: number })
						: reject(new Error(`the web part exited ${code}`)),
				)
			},
		)

		// the worker, as `npm run worker` starts it
		worker = spawn(
			process.execPath,
			[...(process.env.BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? []), 'worker.ts'],
			{ cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] },
		)
		const workerPid = worker.pid!
		let peakWorkerRss = 0
		let run
		for (;;) {
			await new Promise((r) => setTimeout(r, 500))
			peakWorkerRss = Math.max(peakWorkerRss, memoryOf(workerPid))
			run = await db
				.selectFrom('verification_runs')
				.select([
					'status',
					'error',
					'notes',
					'charged',
					'checked',
					sql<number>`extract(epoch from finished_at - started_at)::float8`.as('jobSeconds'),
					sql<number>`extract(epoch from finished_at - created_at)::float8`.as('queuedSeconds'),
				])
				.where('id', '=', web.runId)
				.executeTakeFirstOrThrow()
			if (run.status >= 2) break
		}
		const workerCpuSeconds = cpuSecondsOf(workerPid)
		const loadAfter = load()
		if (run.status !== 2) throw new Error(`run ended ${run.status}: ${run.error}`)
		const files = fake.files.size - filesBefore
		const singles = fake.calls.filter((c) => c.startsWith('GET /api/v3')).length - singlesBefore
		// the path measured is the one the calls show, not the one asked for
		const measured = files > 0 && singles === 0 ? 'bulk' : files === 0 ? 'single' : 'mixed'
		if (measured !== path)
			throw new Error(`asked for the ${path} path, the calls show ${measured}: ${run.notes}`)
		const perSecond =
			path === 'single' ? Math.min(RATE, CONCURRENCY / (DELAY_MS / 1000)) : BULK_RATE
		const floor = EMAILS / perSecond
		const ratio = run.jobSeconds / floor
		const peakRss = Math.max(web.peakRssMb, peakWorkerRss)
		const within = ratio <= 1.2 && peakRss < 300
		return {
			within,
			lines: [
				path === 'single'
					? `single checks (GET /api/v3 an email, MILLIONVERIFIER_BULK_MIN=0): ${singles.toLocaleString('en')} calls`
					: `bulk file API (MILLIONVERIFIER_BULK_MIN=1): ${files} files uploaded, ${singles} single checks`,
				`  load average (1, 5, 15 min): before ${loadBefore}, after ${loadAfter}`,
				`  floor (${path === 'single' ? "the key's rate limit" : "the provider's file rate"}): ${floor.toFixed(1)} s (${perSecond}/s)`,
				`  job (worker.ts, started to done): ${run.jobSeconds.toFixed(1)} s = ${ratio.toFixed(2)}x the floor (${ratio <= 1.2 ? 'within' : 'OVER'} 1.2x); queued to done ${run.queuedSeconds.toFixed(1)} s; worker CPU ${workerCpuSeconds.toFixed(1)} s (${((workerCpuSeconds * 1e6) / EMAILS).toFixed(0)} µs an email)`,
				`  start (web: rows, hold, job queued): ${web.seconds.toFixed(1)} s`,
				`  emails checked at the fake: ${(fake.checks.length - checksBefore).toLocaleString('en')}, charged ${run.charged.toLocaleString('en')}, balance ${await getCreditBalance(user.id)}`,
				`  peak RSS: web ${web.peakRssMb.toFixed(0)} MB, worker ${peakWorkerRss.toFixed(0)} MB (${peakRss < 300 ? 'under' : 'OVER'} 300 MB)`,
			],
		}
	} finally {
		if (worker && worker.exitCode === null) {
			const exited = new Promise((r) => worker!.once('exit', r))
			worker.kill('SIGTERM')
			await exited
		}
	}
}

/** A process's peak resident memory so far (the kernel's VmHWM), in MB. */
function memoryOf(pid: number) {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8')
		return Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? 0) / 1024
	} catch {
		return 0
	}
}

/** CPU time (user + system) a process has used, in seconds. */
function cpuSecondsOf(pid: number) {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
	return (Number(fields[11]) + Number(fields[12])) / 100
}
