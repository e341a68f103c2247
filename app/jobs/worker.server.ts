import { runAsJob } from '../../db/index.server.ts'
import { logger } from '../utils/logger.server.ts'
import { configureQueue, getBoss } from './boss.server.ts'
import { jobDefinitions } from './registry.server.ts'

export type Workers = { stop(): Promise<void> }

/**
 * Starts a worker for every job kind in this process. `stop()` lets running
 * jobs finish (up to `drainSeconds`) before it returns: SIGTERM drains.
 */
export async function startWorkers(options: {
	concurrency: number
	drainSeconds?: number
}): Promise<Workers> {
	const boss = await getBoss()
	for (const job of jobDefinitions) {
		await configureQueue(boss, job.name, job)
		await boss.work(
			job.name,
			{
				batchSize: 1,
				localConcurrency: job.concurrency ?? options.concurrency,
				pollingIntervalSeconds: 1,
			},
			async ([attempt]) => {
				if (!attempt) return
				const data = job.schema.parse(attempt.data)
				const started = Date.now()
				try {
					// on the job pool: a job's connections never keep pages waiting
					await runAsJob(() =>
						job.handler(data, {
							jobId: attempt.id,
							retryCount: attempt.retryCount,
							signal: attempt.signal,
						}),
					)
					logger.info({ job: job.name, id: attempt.id, ms: Date.now() - started }, 'job done')
				} catch (error) {
					logger.warn({ job: job.name, id: attempt.id, err: error }, 'job failed')
					throw error
				}
			},
		)
		if (job.schedule)
			await boss.schedule(job.name, job.schedule.cron, job.schedule.data as object, { tz: 'UTC' })
	}
	logger.info({ kinds: jobDefinitions.map((j) => j.name) }, 'workers started')
	return {
		async stop() {
			await boss.stop({ graceful: true, timeout: (options.drainSeconds ?? 30) * 1000, close: true })
		},
	}
}
