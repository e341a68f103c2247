import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	COMPANY_JOB_RETRY_LIMIT,
	runCompanyScrape,
	settleEndedCompanyScrape,
	unfinishedCompanyScrapes,
} from '../../services/companies/run-company-scrape.server.ts'

export const companyScrapeJob = defineJob({
	name: 'company-scrape',
	schema: jobPayloads['company-scrape'],
	retryLimit: COMPANY_JOB_RETRY_LIMIT,
	retryDelaySeconds: 15,
	expireInSeconds: 6 * 3600,
	handler: ({ listId }, context) => runCompanyScrape(listId, context),
	settle: {
		unfinished: unfinishedCompanyScrapes,
		ended: ({ listId }) => settleEndedCompanyScrape(listId),
	},
})
