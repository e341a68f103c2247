import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	CSV_IMPORT_RETRY_LIMIT,
	runCsvImport,
	settleEndedImport,
	unfinishedImports,
} from '../../services/imports/run-csv-import.server.ts'

/** Imports an uploaded CSV into its list (DESIGN.md section 7): resumable from its checkpoint. */
export const csvImportJob = defineJob({
	name: 'csv-import',
	schema: jobPayloads['csv-import'],
	retryLimit: CSV_IMPORT_RETRY_LIMIT,
	retryDelaySeconds: 5,
	expireInSeconds: 2 * 3600,
	concurrency: 1,
	handler: ({ listId }, context) => runCsvImport(listId, context),
	settle: { unfinished: unfinishedImports, ended: ({ listId }) => settleEndedImport(listId) },
})
