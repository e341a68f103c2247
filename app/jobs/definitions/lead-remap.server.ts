import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import { runRemap } from '../../services/lists/remap-columns.server.ts'

/** A big list's kept column moved into a lead field (decision 0081): one statement, idempotent. */
export const leadRemapJob = defineJob({
	name: 'lead-remap',
	schema: jobPayloads['lead-remap'],
	concurrency: 1,
	retryLimit: 3,
	expireInSeconds: 1800,
	handler: async ({ listId, column, field }) => {
		await runRemap(listId, column, field)
	},
})
