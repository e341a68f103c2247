import type { z } from 'zod'

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
