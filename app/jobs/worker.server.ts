import type { Job } from 'pg-boss'
import { runAsJob } from '../../db/index.server.ts'
import { startWebhookDispatcher } from '../services/webhooks/dispatch.server.ts'
import { logger } from '../utils/logger.server.ts'
import { isRateLimited } from '../utils/patience.server.ts'
import { BOSS_SCHEMA, configureQueue, getBoss } from './boss.server.ts'
import {
	type JobDefinition,
	pausesForWindow,
	RATE_LIMIT_RESCHEDULES,
	rateLimitDelaySeconds,
} from './define.server.ts'
import { jobDefinitions } from './registry.server.ts'
import { onWake, wakeQueue } from './wake.server.ts'

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

/** How often an idle queue's loop looks for jobs committed by another process. */
const POLL_MS = 1000

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
	// jobs this process runs now, for handing them back (or failing them) at shutdown
	const running = new Map<string, { name: string; attempt: Job; claim: AbortController }>()
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

	/**
	 * Runs one fetched job: its handler, then its own completion or failure, each fenced to this
	 * attempt (a job settled or retried elsewhere meanwhile is left alone). As pg-boss's own worker:
	 * the handler has the job's `expireInSeconds`, then the job fails and its signal aborts; a
	 * heartbeat keeps the claim alive, and a claim found gone aborts the signal.
	 */
	async function runJob(job: JobDefinition<any>, attempt: Job, handled: () => void) {
		const claim = new AbortController()
		running.set(attempt.id, { name: job.name, attempt, claim })
		let expiry: NodeJS.Timeout | undefined
		const heartbeat = attempt.heartbeatSeconds
			? setInterval(() => {
					boss
						.touch(job.name, [attempt])
						.then((touched) => {
							const held = (touched as { settled?: string[] }).settled
							if (held && !held.includes(attempt.id))
								claim.abort(new Error(`job ${attempt.id} is no longer held by this worker`))
						})
						// a heartbeat that could not run says nothing about the claim
						.catch((err) =>
							logger.warn({ job: job.name, id: attempt.id, err }, 'job heartbeat failed'),
						)
				}, attempt.heartbeatSeconds * 500)
			: undefined
		const rateLimited = Number((attempt.data as { rateLimited?: unknown }).rateLimited) || 0
		const windowPauses = Number((attempt.data as { windowPauses?: unknown }).windowPauses) || 0
		const started = Date.now()
		let outcome: { failed: false } | { failed: true; error: unknown } | null = null
		try {
			logger.info({ job: job.name, id: attempt.id, retryCount: attempt.retryCount }, 'job started')
			try {
				const data = job.schema.parse(attempt.data)
				// on the job pool: a job's connections never keep pages waiting
				const handling = runAsJob(() =>
					job.handler(data, {
						jobId: attempt.id,
						retryCount: attempt.retryCount,
						signal: AbortSignal.any([claim.signal, shutdown.signal]),
						rateLimited,
						windowPauses,
					}),
				)
				const expired = new Promise<never>((_, reject) => {
					expiry = setTimeout(() => {
						const error = new Error(`handler execution exceeded ${attempt.expireInSeconds}s`)
						claim.abort(error)
						reject(error)
					}, attempt.expireInSeconds * 1000)
				})
				// the handler left behind at its expiry settles unobserved
				handling.catch(() => {})
				await Promise.race([handling, expired])
				logger.info({ job: job.name, id: attempt.id, ms: Date.now() - started }, 'job done')
				outcome = { failed: false }
			} catch (error) {
				if (shutdown.signal.aborted) {
					// stopped for the shutdown: back to the queue, not a failed attempt
					await handBack(job.name, [attempt.id]).catch((err) =>
						logger.warn({ job: job.name, id: attempt.id, err }, 'job not handed back'),
					)
				} else if (pausesForWindow(error, windowPauses)) {
					await reschedule(
						job.name,
						attempt.id,
						windowPauses + 1,
						rateLimitDelaySeconds(error, rateLimited),
						'windowPauses',
					)
				} else if (isRateLimited(error) && rateLimited < RATE_LIMIT_RESCHEDULES) {
					await reschedule(
						job.name,
						attempt.id,
						rateLimited + 1,
						rateLimitDelaySeconds(error, rateLimited),
					)
				} else {
					logger.warn({ job: job.name, id: attempt.id, err: error }, 'job failed')
					outcome = { failed: true, error }
				}
			} finally {
				clearTimeout(expiry)
				clearInterval(heartbeat)
				// its slot is free once the handler is done: the next fetch need not wait for this settle
				handled()
			}
			// this job alone: a failure takes the queue's retry and backoff, its batch-mates are untouched
			if (outcome?.failed) await boss.fail(job.name, attempt, outcome.error as object)
			else if (outcome) await boss.complete(job.name, attempt)
		} catch (err) {
			// the job stays active without a heartbeat: the supervisor retries it
			logger.warn({ job: job.name, id: attempt.id, err }, 'job not settled')
		} finally {
			running.delete(attempt.id)
			for (const notify of settled) notify()
		}
	}

	/**
	 * One loop per queue keeps up to `limit` of its jobs running: it fetches as many jobs as it has
	 * free slots in one statement, and fetches again as soon as a slot frees while the last fetch
	 * came back full (a backlog), when woken (jobs committed in this process), or at the idle poll.
	 * pg-boss's own worker loop took one job per worker per poll, so a queue ran at most `limit`
	 * jobs a second whatever their length (decision 0096).
	 */
	function startQueueLoop(job: JobDefinition<any>, limit: number) {
		let active = 0
		let stopped = false
		let backlog = false
		let woken = false
		let wake: (() => void) | null = null
		const poke = () => {
			if (wake) wake()
			else woken = true
		}
		const nap = (ms: number) =>
			new Promise<void>((resolve) => {
				if (woken) {
					woken = false
					resolve()
					return
				}
				const done = () => {
					clearTimeout(timer)
					wake = null
					resolve()
				}
				const timer = setTimeout(done, ms)
				wake = done
			})
		const offWake = onWake(job.name, poke)
		const loop = (async () => {
			let failures = 0
			while (!stopped) {
				const free = limit - active
				if (free > 0) {
					try {
						const attempts = await boss.fetch<object>(job.name, { batchSize: free })
						failures = 0
						if (stopped) {
							// taken while stopping: back as never started
							await handBack(
								job.name,
								attempts.map((a) => a.id),
							).catch((err) => logger.warn({ job: job.name, err }, 'jobs not handed back'))
							break
						}
						backlog = attempts.length === free
						for (const attempt of attempts) {
							active++
							let freed = false
							const release = () => {
								if (freed) return
								freed = true
								active--
								if (backlog) poke()
							}
							runJob(job, attempt, release).then(release, release)
						}
					} catch (error) {
						// the database restarting: polled again, with a growing pause
						failures++
						backlog = false
						if (failures === 1 || failures % 50 === 0)
							logger.warn({ job: job.name, err: error }, 'job queue error')
					}
				}
				if (stopped) break
				if (backlog && active < limit) continue
				await nap(failures ? Math.min(10_000, POLL_MS * 2 ** failures) : POLL_MS)
			}
		})()
		return {
			async stop() {
				stopped = true
				offWake()
				poke()
				await loop
			},
		}
	}

	const loops: { stop(): Promise<void> }[] = []
	for (const job of jobDefinitions) {
		await configureQueue(boss, job.name, job)
		loops.push(startQueueLoop(job, job.concurrency ?? options.concurrency))
		if (job.schedule)
			await boss.schedule(job.name, job.schedule.cron, job.schedule.data as object, { tz: 'UTC' })
	}
	// the webhook outbox's relay: events to deliveries, beside the jobs that send them
	const dispatcher = startWebhookDispatcher({ onQueued: () => wakeQueue('webhook-delivery') })
	logger.info({ kinds: jobDefinitions.map((j) => j.name) }, 'workers started')

	/** Takes no more jobs (a fetch in flight is waited for, up to `ms`). */
	async function stopTaking(ms: number) {
		await Promise.race([Promise.all(loops.map((loop) => loop.stop())), sleep(ms)])
	}

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
				const drainMs = (options.drainSeconds ?? 30) * 1000
				await stopTaking(drainMs)
				if (!(await allSettled(drainMs))) {
					// as pg-boss's own shutdown: what did not finish in time fails (and is retried)
					for (const { name, attempt, claim } of running.values()) {
						await boss
							.fail(name, attempt, new Error('worker shut down while active'))
							.catch((err) => logger.warn({ job: name, id: attempt.id, err }, 'job not failed'))
						claim.abort(new Error('worker shut down while active'))
					}
				}
				await boss.stop({ graceful: true, timeout: drainMs, close: true })
				return
			}
			const { fence, settleMs = 3000 } = stopOptions.handBack
			// take no more jobs (the loops stop at once; a fetch in flight hands its jobs back)
			const taking = stopTaking(settleMs)
			// jobs stop at their next checkpoint and are handed back as they settle
			shutdown.abort(new Error('worker stopping'))
			if (!(await allSettled(settleMs))) {
				// the rest cannot write any more once the pool is closed; then they go back too
				await Promise.race([fence(), sleep(settleMs)])
				const byKind = new Map<string, string[]>()
				for (const [id, { name }] of running) byKind.set(name, [...(byKind.get(name) ?? []), id])
				for (const [name, ids] of byKind) await handBack(name, ids)
			}
			await taking
			await boss.stop({ graceful: false, close: true })
		},
	}
}
