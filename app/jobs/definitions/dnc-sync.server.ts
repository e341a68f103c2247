import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	queueDailyDncSyncs,
	runDncSync,
	settleEndedDncSync,
	SYNC_RETRY_LIMIT,
	unfinishedDncSyncs,
} from '../../services/do-not-contact/eb-sync.server.ts'

/** Issue 36 point 4: do-not-contact entries to EmailBison and back, resumable per entry. */
export const dncSyncJob = defineJob({
	name: 'dnc-sync',
	schema: jobPayloads['dnc-sync'],
	retryLimit: SYNC_RETRY_LIMIT,
	retryDelaySeconds: 10,
	expireInSeconds: 6 * 3600,
	concurrency: 2,
	handler: ({ runId }, context) => runDncSync(runId, context),
	settle: {
		unfinished: unfinishedDncSyncs,
		ended: ({ runId }) => settleEndedDncSync(runId),
	},
})

/** Daily: every account with EmailBison connected pushes and pulls its do-not-contact list. */
export const dncSyncDailyJob = defineJob({
	name: 'dnc-sync-daily',
	schema: jobPayloads['dnc-sync-daily'],
	concurrency: 1,
	retryLimit: 2,
	expireInSeconds: 600,
	schedule: { cron: '20 3 * * *', data: {} },
	async handler() {
		await queueDailyDncSyncs()
	},
})
