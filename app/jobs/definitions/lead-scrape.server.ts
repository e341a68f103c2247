import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	JOB_RETRY_LIMIT,
	runLeadScrape,
	settleEndedLeadScrape,
	unfinishedLeadScrapes,
} from '../../services/leads/run-lead-scrape.server.ts'

export const leadScrapeJob = defineJob({
	name: 'lead-scrape',
	schema: jobPayloads['lead-scrape'],
	retryLimit: JOB_RETRY_LIMIT,
	retryDelaySeconds: 15,
	expireInSeconds: 6 * 3600,
	handler: ({ requestId }, context) => runLeadScrape(requestId, context),
	settle: {
		unfinished: unfinishedLeadScrapes,
		ended: ({ requestId }) => settleEndedLeadScrape(requestId),
	},
})
