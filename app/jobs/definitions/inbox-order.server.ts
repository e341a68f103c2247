import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import { processInboxOrder } from '../../services/inboxes/order-job.server.ts'

/**
 * DESIGN.md section 7's inbox-order queue: a paid inbox order is checked, its addresses
 * planned and the platform admins mailed (app/services/inboxes/order-job.server.ts).
 */
export const inboxOrderJob = defineJob({
	name: 'inbox-order',
	schema: jobPayloads['inbox-order'],
	retryLimit: 5,
	retryDelaySeconds: 30,
	expireInSeconds: 300,
	handler: ({ orderId }) => processInboxOrder(orderId),
})
