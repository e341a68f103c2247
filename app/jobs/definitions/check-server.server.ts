import { runServerChecks } from '../../services/admin/health.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/** DESIGN.md section 7's check-server queue, every five minutes: results land in check_server. */
export const checkServerJob = defineJob({
	name: 'check-server',
	schema: jobPayloads['check-server'],
	concurrency: 1,
	retryLimit: 0,
	expireInSeconds: 120,
	schedule: { cron: '*/5 * * * *', data: {} },
	async handler() {
		const results = await runServerChecks()
		const failed = results.filter((r) => !r.ok)
		if (failed.length) logger.warn({ failed }, 'server checks failed')
	},
})
