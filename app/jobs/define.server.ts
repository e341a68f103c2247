import type { z } from 'zod'
import { isTransientDatabaseError } from '../../db/errors.ts'
import { isRateLimited } from '../utils/patience.server.ts'

export type JobContext = {
	jobId: string
	/** how many times this job was tried before this attempt */
	retryCount: number
	/** aborted when the worker stops or the job expires */
	signal: AbortSignal
	/** how many times this job was put back for a provider's rate limit (not counted as tries) */
	rateLimited?: number
	/** how many times this job was put back until a provider's spent window ends (decision 0077) */
	windowPauses?: number
}

/**
 * How many times a job is put back in the queue for a rate limit without spending an attempt;
 * past that a rate limit is a failed attempt like any other (a provider that never lets us in).
 */
export const RATE_LIMIT_RESCHEDULES = 20

/**
 * How many times a job is put back until a provider's spent window ends (Apollo's minute, hour
 * or day: a long list on a small plan meets them often, and each always ends); past that such
 * a limit is an ordinary rate limit (decision 0077).
 */
export const WINDOW_PAUSES = 200
/** The longest a job waits in the queue for a spent window: a day window, and some slack. */
export const WINDOW_PAUSE_MAX_SECONDS = 25 * 3600

/** A rate limit whose window has an end the job waits for in the queue, when pauses are left. */
export function pausesForWindow(error: unknown, windowPauses = 0): error is { resumeAt: Date } {
	return isRateLimited(error) && error.resumeAt instanceof Date && windowPauses < WINDOW_PAUSES
}

/** How long a job put back for a rate limit waits: the provider's Retry-After, within bounds. */
export function rateLimitDelaySeconds(error: unknown, times: number) {
	if (isRateLimited(error) && error.resumeAt)
		return Math.min(
			WINDOW_PAUSE_MAX_SECONDS,
			Math.max(1, Math.ceil((error.resumeAt.getTime() - Date.now()) / 1000)),
		)
	const asked = isRateLimited(error) ? error.retryAfterSeconds : undefined
	if (asked !== undefined) return Math.min(600, Math.max(1, Math.ceil(asked)))
	return Math.min(300, 15 * 2 ** Math.min(times, 5))
}

/**
 * A kind of background work: one pg-boss queue, a zod payload and a handler.
 * Handlers must be idempotent (a job can run again after a crash) and keep
 * their progress in their own status row so a re-run resumes from it.
 */
export type JobDefinition<T = unknown> = {
	name: string
	schema: z.ZodType<T>
	handler: (data: T, context: JobContext) => Promise<void>
	/** jobs of this kind one worker process runs at once */
	concurrency?: number
	retryLimit?: number
	retryDelaySeconds?: number
	expireInSeconds?: number
	/** cron (UTC) for recurring jobs */
	schedule?: { cron: string; data: T }
	/**
	 * For kinds with a status row: what the sweep (settle-ended-jobs) needs to settle work whose
	 * job pg-boss will never run again (retry limit, expiry, a deleted job), decision 0062.
	 */
	settle?: {
		/**
		 * the payloads of this kind's status rows still pending or running, untouched for
		 * `quietSeconds`, while no job of theirs is queued or running
		 */
		unfinished: (quietSeconds: number) => Promise<T[]>
		/**
		 * Ends the status row as failed with a reason a user understands and settles its credits,
		 * once, when no job of this payload is queued or running any more; else does nothing.
		 */
		ended: (data: T) => Promise<boolean>
	}
}

export function defineJob<T>(definition: JobDefinition<T>): JobDefinition<T> {
	return definition
}

/**
 * Whether a failed attempt goes back to pg-boss to be retried later (with backoff, resuming
 * from the job's checkpoint) instead of ending the job as failed and refunding it: while
 * attempts are left, errors that go away by themselves (the database restarting or
 * unreachable, a deadlock or serialization victim), the worker stopping, and what the caller
 * knows to be retryable (an outside service's 5xx). A rate limit always goes back: the worker
 * reschedules it without spending an attempt (a provider saying "slow down" is no failure).
 */
export function retryLater(
	error: unknown,
	context: Pick<JobContext, 'retryCount' | 'signal' | 'rateLimited' | 'windowPauses'>,
	retryLimit: number,
	retryable = false,
) {
	if (pausesForWindow(error, context.windowPauses)) return true
	if (isRateLimited(error) && (context.rateLimited ?? 0) < RATE_LIMIT_RESCHEDULES) return true
	const transient = retryable || context.signal.aborted || isTransientDatabaseError(error)
	return transient && context.retryCount < retryLimit
}
