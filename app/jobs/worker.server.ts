import { runAsJob } from '../../db/index.server.ts'
import { startWebhookDispatcher } from '../services/webhooks/dispatch.server.ts'
import { logger } from '../utils/logger.server.ts'
import { isRateLimited } from '../utils/patience.server.ts'
import { BOSS_SCHEMA, configureQueue, getBoss } from './boss.server.ts'
import { pausesForWindow, RATE_LIMIT_RESCHEDULES, rateLimitDelaySeconds } from './define.server.ts'
import { jobDefinitions } from './registry.server.ts'

export type Workers = {
	/**
	 * Without options: lets running jobs finish (up to `drainSeconds`). With `handBack`: stops
	 * taking jobs, asks the running ones to stop at their next checkpoint, fences the rest off
	 * the database with `fence` (closing this process's pool), and puts them back in the queue
	 * as not started, so another worker takes them at once and resumes from the checkpoint,
	 * without spending a retry.
	 */
	stop(options?: { handBack: { fence: () => Promise<void>; settleMs?: number } }): Promise<void>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Starts a worker for every job kind in this process. On SIGTERM the entry points call
 * `stop({ handBack })`: running jobs move to another worker at once (decision 0025).
 */
export async function startWorkers(options: {
	concurrency: number
	drainSeconds?: number
}): Promise<Workers> {
	const boss = await getBoss()
	// jobs this process runs now (id → kind), for handing them back at shutdown
	const running = new Map<string, string>()
	const settled = new Set<() => void>()
	const shutdown = new AbortController()

	// As pg-boss's restore, but only while the job is still active: the job is queued again
	// as never started, so its next fetch does not count as a retry.
	async function handBack(name: string, ids: string[]) {
		if (ids.length === 0) return
		await boss.getDb().executeSql(
			`update ${BOSS_SCHEMA}.job set state = 'created', started_on = null, heartbeat_on = null, start_after = now()
				 where name = $1 and id = any($2::uuid[]) and state = 'active'`,
			[name, ids],
		)
		logger.info({ job: name, ids }, 'jobs handed back to the queue')
	}

	// A provider's rate limit: the job waits in the queue as never started, so the wait spends
	// no attempt (decision 0062); its data counts the times, which RATE_LIMIT_RESCHEDULES bounds.
	// A spent window (decision 0077) is counted apart, as `windowPauses`; pg-boss drops a job
	// still queued past keep_until, so that moves with a pause of up to a day.
	async function reschedule(
		name: string,
		id: string,
		times: number,
		delaySeconds: number,
		counter: 'rateLimited' | 'windowPauses' = 'rateLimited',
	) {
		await boss.getDb().executeSql(
			`update ${BOSS_SCHEMA}.job set state = 'created', started_on = null, heartbeat_on = null,
				start_after = now() + $3 * interval '1 second',
				keep_until = greatest(keep_until, now() + ($3 + 86400) * interval '1 second'),
				data = data || jsonb_build_object($5::text, $4::int)
			 where name = $1 and id = $2 and state = 'active'`,
			[name, id, delaySeconds, times, counter],
		)
		logger.info(
			{ job: name, id, delaySeconds, times, counter },
			'job rate limited: back in the queue',
		)
	}

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
				const rateLimited = Number((attempt.data as { rateLimited?: unknown }).rateLimited) || 0
				const windowPauses = Number((attempt.data as { windowPauses?: unknown }).windowPauses) || 0
				const started = Date.now()
				running.set(attempt.id, job.name)
				logger.info(
					{ job: job.name, id: attempt.id, retryCount: attempt.retryCount },
					'job started',
				)
				try {
					// on the job pool: a job's connections never keep pages waiting
					await runAsJob(() =>
						job.handler(data, {
							jobId: attempt.id,
							retryCount: attempt.retryCount,
							signal: AbortSignal.any([attempt.signal, shutdown.signal]),
							rateLimited,
							windowPauses,
						}),
					)
					logger.info({ job: job.name, id: attempt.id, ms: Date.now() - started }, 'job done')
				} catch (error) {
					if (shutdown.signal.aborted) {
						// stopped for the shutdown: back to the queue, not a failed attempt
						await handBack(job.name, [attempt.id]).catch((err) =>
							logger.warn({ job: job.name, id: attempt.id, err }, 'job not handed back'),
						)
						return
					}
					if (pausesForWindow(error, windowPauses)) {
						await reschedule(
							job.name,
							attempt.id,
							windowPauses + 1,
							rateLimitDelaySeconds(error, rateLimited),
							'windowPauses',
						)
						return
					}
					if (isRateLimited(error) && rateLimited < RATE_LIMIT_RESCHEDULES) {
						await reschedule(
							job.name,
							attempt.id,
							rateLimited + 1,
							rateLimitDelaySeconds(error, rateLimited),
						)
						return
					}
					logger.warn({ job: job.name, id: attempt.id, err: error }, 'job failed')
					throw error
				} finally {
					running.delete(attempt.id)
					for (const notify of settled) notify()
				}
			},
		)
		if (job.schedule)
			await boss.schedule(job.name, job.schedule.cron, job.schedule.data as object, { tz: 'UTC' })
	}
	// the webhook outbox's relay: events to deliveries, beside the jobs that send them
	const dispatcher = startWebhookDispatcher()
	logger.info({ kinds: jobDefinitions.map((j) => j.name) }, 'workers started')

	async function allSettled(ms: number) {
		const deadline = Date.now() + ms
		while (running.size > 0 && Date.now() < deadline) {
			await Promise.race([
				new Promise<void>((resolve) => settled.add(resolve)),
				sleep(Math.max(0, deadline - Date.now())),
			])
			settled.clear()
		}
		return running.size === 0
	}

	return {
		async stop(stopOptions) {
			await dispatcher.stop()
			if (!stopOptions) {
				await boss.stop({
					graceful: true,
					timeout: (options.drainSeconds ?? 30) * 1000,
					close: true,
				})
				return
			}
			const { fence, settleMs = 3000 } = stopOptions.handBack
			// take no more jobs
			await Promise.all(jobDefinitions.map((job) => boss.offWork(job.name, { wait: false })))
			// jobs stop at their next checkpoint and are handed back as they settle
			shutdown.abort(new Error('worker stopping'))
			if (!(await allSettled(settleMs))) {
				// the rest cannot write any more once the pool is closed; then they go back too
				await Promise.race([fence(), sleep(settleMs)])
				const byKind = new Map<string, string[]>()
				for (const [id, name] of running) byKind.set(name, [...(byKind.get(name) ?? []), id])
				for (const [name, ids] of byKind) await handBack(name, ids)
			}
			await boss.stop({ graceful: false, close: true })
		},
	}
}
