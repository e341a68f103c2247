import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	runVerification,
	settleEndedVerification,
	unfinishedVerifications,
	VERIFY_JOB_RETRY_LIMIT,
} from '../../services/verification/run-verification.server.ts'

export const verifyJob = defineJob({
	name: 'verify',
	schema: jobPayloads.verify,
	retryLimit: VERIFY_JOB_RETRY_LIMIT,
	retryDelaySeconds: 10,
	expireInSeconds: 12 * 3600,
	concurrency: 2,
	handler: ({ runId }, context) => runVerification(runId, context),
	settle: {
		unfinished: unfinishedVerifications,
		ended: ({ runId }) => settleEndedVerification(runId),
	},
})
