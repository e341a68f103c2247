import type { z } from 'zod'
import { isTransientDatabaseError } from '../../db/errors.ts'

export type JobContext = {
	jobId: string
	/** how many times this job was tried before this attempt */
	retryCount: number
	/** aborted when the worker stops or the job expires */
	signal: AbortSignal
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
}

export function defineJob<T>(definition: JobDefinition<T>): JobDefinition<T> {
	return definition
}

/**
 * Whether a failed attempt goes back to pg-boss to be retried later (with backoff, resuming
 * from the job's checkpoint) instead of ending the job as failed and refunding it: while
 * attempts are left, errors that go away by themselves (the database restarting or
 * unreachable, a deadlock or serialization victim), the worker stopping, and what the caller
 * knows to be retryable (an outside service's 5xx).
 */
export function retryLater(
	error: unknown,
	context: Pick<JobContext, 'retryCount' | 'signal'>,
	retryLimit: number,
	retryable = false,
) {
	const transient = retryable || context.signal.aborted || isTransientDatabaseError(error)
	return transient && context.retryCount < retryLimit
}
