import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	queueDailyHealthChecks,
	runHealthChecks,
} from '../../services/domain-health/health.server.ts'

/** Issue 38: the health checks of up to 100 domains (a re-run checks again: idempotent). */
export const domainHealthJob = defineJob({
	name: 'domain-health',
	schema: jobPayloads['domain-health'],
	retryLimit: 2,
	retryDelaySeconds: 60,
	expireInSeconds: 900,
	async handler({ domainIds }) {
		await runHealthChecks(domainIds)
	},
})

/** Daily: every domain's health checked again (batches of domain-health jobs). */
export const domainHealthDailyJob = defineJob({
	name: 'domain-health-daily',
	schema: jobPayloads['domain-health-daily'],
	concurrency: 1,
	retryLimit: 2,
	expireInSeconds: 600,
	schedule: { cron: '40 4 * * *', data: {} },
	async handler() {
		await queueDailyHealthChecks()
	},
})
