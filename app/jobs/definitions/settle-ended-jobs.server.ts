import { defineJob, type JobDefinition } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/**
 * Every minute: status rows (lists, runs, uploads, imports) still pending or running whose job
 * pg-boss will never run again (its retries spent by crashes, expired, or deleted) end as
 * failed with a reason and their unused credits refunded, once (decision 0062).
 */
export function settleEndedJobsJob(
	/** every kind (the registry's list, read when the job runs: the registry makes this one) */
	definitions: () => JobDefinition<any>[],
) {
	return defineJob({
		name: 'settle-ended-jobs',
		schema: jobPayloads['settle-ended-jobs'],
		retryLimit: 0,
		expireInSeconds: 300,
		concurrency: 1,
		schedule: { cron: '* * * * *', data: {} },
		async handler() {
			const { settleEndedJobs } = await import('../ended.server.ts')
			await settleEndedJobs(definitions())
		},
	})
}
