import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/**
 * Every minute: status rows (lists, runs, uploads, imports) still pending or running whose job
 * pg-boss will never run again (its retries spent by crashes, expired, or deleted) end as
 * failed with a reason and their unused credits refunded, once (decision 0062).
 */
export const settleEndedJobsJob = defineJob({
	name: 'settle-ended-jobs',
	schema: jobPayloads['settle-ended-jobs'],
	retryLimit: 0,
	expireInSeconds: 300,
	concurrency: 1,
	schedule: { cron: '* * * * *', data: {} },
	async handler() {
		// loaded here: the registry imports this definition
		const [{ settleEndedJobs }, { jobDefinitions }] = await Promise.all([
			import('../ended.server.ts'),
			import('../registry.server.ts'),
		])
		await settleEndedJobs(jobDefinitions)
	},
})
