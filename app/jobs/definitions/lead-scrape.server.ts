import { z } from 'zod'
import { defineJob } from '../define.server.ts'
import { JOB_RETRY_LIMIT, runLeadScrape } from '../../services/leads/run-lead-scrape.server.ts'

export const leadScrapeJob = defineJob({
	name: 'lead-scrape',
	schema: z.object({ requestId: z.uuid() }),
	retryLimit: JOB_RETRY_LIMIT,
	retryDelaySeconds: 15,
	expireInSeconds: 6 * 3600,
	handler: ({ requestId }, context) => runLeadScrape(requestId, context),
})
