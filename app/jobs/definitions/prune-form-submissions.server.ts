import { pruneFormSubmissions } from '../../services/idempotency/form-submissions.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/** Daily: forms' kept answers (decision 0027) do not pile up for ever. */
export const pruneFormSubmissionsJob = defineJob({
	name: 'prune-form-submissions',
	schema: jobPayloads['prune-form-submissions'],
	concurrency: 1,
	retryLimit: 2,
	expireInSeconds: 600,
	schedule: { cron: '17 3 * * *', data: {} },
	async handler() {
		const pruned = await pruneFormSubmissions()
		if (pruned) logger.info({ pruned }, 'old form answers pruned')
	},
})
