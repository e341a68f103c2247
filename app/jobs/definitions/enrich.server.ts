import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	ENRICH_JOB_RETRY_LIMIT,
	runEnrichment,
	settleEndedRun,
	unfinishedRuns,
} from '../../services/enrichments/run-enrichment.server.ts'

export const enrichJob = defineJob({
	name: 'enrich',
	schema: jobPayloads.enrich,
	retryLimit: ENRICH_JOB_RETRY_LIMIT,
	retryDelaySeconds: 10,
	expireInSeconds: 6 * 3600,
	concurrency: 2,
	handler: ({ runId }, context) => runEnrichment(runId, context),
	settle: { unfinished: unfinishedRuns, ended: ({ runId }) => settleEndedRun(runId) },
})
