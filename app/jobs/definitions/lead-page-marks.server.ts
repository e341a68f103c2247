import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import { buildPageMarks } from '../../services/lists/page-marks.server.ts'

/** A finished list's marks in one order, for typed page numbers (decision 0045). */
export const leadPageMarksJob = defineJob({
	name: 'lead-page-marks',
	schema: jobPayloads['lead-page-marks'],
	concurrency: 1,
	retryLimit: 2,
	expireInSeconds: 600,
	handler: ({ listId, sort }) => buildPageMarks(listId, sort),
})
