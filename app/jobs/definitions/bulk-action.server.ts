import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import {
	runBulkAction,
	settleEndedBulkAction,
	unfinishedBulkActions,
} from '../../services/bulk/bulk-actions.server.ts'
import { domainBulk } from '../../services/domains/bulk.server.ts'
import { leadBulk } from '../../services/lists/leads-bulk.server.ts'
import { listBulk } from '../../services/lists/lists-bulk.server.ts'
import { inboxOrderBulk } from '../../services/inboxes/bulk.server.ts'
import { invitationBulk } from '../../services/team/bulk.server.ts'
import { companyBulk } from '../../services/lists/companies-bulk.server.ts'

/** Every kind of rows with bulk actions; the bulk service itself names none (decision 0080). */
export const BULK_HANDLERS = [
	domainBulk,
	leadBulk,
	listBulk,
	inboxOrderBulk,
	invitationBulk,
	companyBulk,
]

/** "Apply an action to these rows" (decision 0080): resumable per row from its status row. */
export const bulkActionJob = defineJob({
	name: 'bulk-action',
	schema: jobPayloads['bulk-action'],
	retryLimit: 5,
	retryDelaySeconds: 10,
	expireInSeconds: 3600,
	handler: ({ bulkId }, { signal }) => runBulkAction(bulkId, BULK_HANDLERS, { signal }),
	settle: {
		unfinished: unfinishedBulkActions,
		ended: ({ bulkId }) => settleEndedBulkAction(bulkId),
	},
})
