// `npm run bench:job-pickup`: how soon a queued job starts (decision 0051). A job is queued in
// a transaction, as the app queues them, at a random moment of the workers' polling, and the
// time from its commit to the job's completion is taken (the job itself, a DNS check of a
// domain that does not exist, takes a few milliseconds). First as the app runs (the queue
// notifies the listening workers), then, as the baseline in the same run, with the queue's
// notification turned off (the workers find the job at their next poll). BENCH_JOBS (30) jobs
// each, one at a time, in a fresh embedded PostgreSQL with the workers in this process.
import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { startBenchDatabase } from './database.ts'

const JOBS = Number(process.env.BENCH_JOBS ?? 30)

const pg = await startBenchDatabase('job-pickup', {})

try {
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { enqueue } = await import('../app/jobs/enqueue.server.ts')
	const { getBoss, stopBoss } = await import('../app/jobs/boss.server.ts')
	const { startWorkers } = await import('../app/jobs/worker.server.ts')
	const workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
	const boss = await getBoss()
	const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
	async function measure(label: string) {
		const waits: number[] = []
		for (let i = 0; i < JOBS; i++) {
			// a random moment of the polling (1 s): the worker is idle by then
			await sleep(1000 + Math.random() * 1000)
			let id: string | null = null
			await db.transaction().execute(async (trx) => {
				id = await enqueue('dns-check', { domainIds: [randomUUID()] }, { db: trx })
			})
			const committed = performance.now()
			for (;;) {
				const job = await boss.getJobById('dns-check', id!)
				if (job?.state === 'completed') break
				if (job?.state === 'failed') throw new Error('the job failed')
				await sleep(2)
			}
			waits.push(performance.now() - committed)
		}
		waits.sort((a, b) => a - b)
		const at = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]!
		console.log(
			`${label}: ${JOBS} jobs, commit to done: p50 ${at(0.5).toFixed(0)} ms, ` +
				`p90 ${at(0.9).toFixed(0)} ms, max ${waits.at(-1)!.toFixed(0)} ms, ` +
				`min ${waits[0]!.toFixed(0)} ms (load average ${loadavg()[0]!.toFixed(1)})`,
		)
		return at(0.5)
	}
	const notified = await measure('notified')
	await boss.updateQueue('dns-check', { notify: false })
	const polled = await measure('polled (baseline)')
	console.log(`p50 ratio notified / polled: ${(notified / polled).toFixed(3)}`)
	await workers.stop()
	await stopBoss()
	await db.destroy()
} finally {
	await pg.stop()
}
