import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	runEmailBisonUpload,
	settleEndedUpload,
	unfinishedUploads,
	UPLOAD_RETRY_LIMIT,
} from '../../services/emailbison/run-upload.server.ts'

/** Uploads a list's leads to an EmailBison campaign (DESIGN.md section 7): resumable per lead. */
export const emailBisonUploadJob = defineJob({
	name: 'emailbison-upload',
	schema: jobPayloads['emailbison-upload'],
	retryLimit: UPLOAD_RETRY_LIMIT,
	retryDelaySeconds: 10,
	expireInSeconds: 6 * 3600,
	concurrency: 2,
	handler: ({ uploadId }, context) => runEmailBisonUpload(uploadId, context),
	settle: {
		unfinished: unfinishedUploads,
		ended: ({ uploadId }) => settleEndedUpload(uploadId),
	},
})
