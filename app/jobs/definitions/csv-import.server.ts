import { db } from '../../../db/index.server.ts'
import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	CSV_IMPORT_RETRY_LIMIT,
	runCsvImport,
	settleEndedImport,
	unfinishedImports,
} from '../../services/imports/run-csv-import.server.ts'
import { notifyJobEnd } from '../../services/notifications/record.server.ts'

/** Imports an uploaded CSV into its list (DESIGN.md section 7): resumable from its checkpoint. */
export const csvImportJob = defineJob({
	name: 'csv-import',
	schema: jobPayloads['csv-import'],
	retryLimit: CSV_IMPORT_RETRY_LIMIT,
	retryDelaySeconds: 5,
	expireInSeconds: 2 * 3600,
	concurrency: 1,
	// the import ends its list outside a transaction of ours: its notification follows once the
	// handler returns, and a worker that died in between leaves the job to a retry, which finds
	// the list ended and records it then; the unique key keeps it to one (decision 0082)
	handler: async ({ listId }, context) => {
		await runCsvImport(listId, context)
		await notifyJobEnd(db, { kind: 'import', id: listId })
	},
	settle: {
		unfinished: unfinishedImports,
		ended: async ({ listId }) => {
			const ended = await settleEndedImport(listId)
			await notifyJobEnd(db, { kind: 'import', id: listId })
			return ended
		},
	},
})
