import { deliverWebhook } from '../../services/webhooks/deliver.server.ts'
import { sendEndpointDisabledMail } from '../../services/webhooks/mail.server.ts'
import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/**
 * One attempt of one webhook delivery (decision 0094). A failed POST is no failed job: the
 * attempt is recorded and the next one queued on the retry schedule. pg-boss's own retries are
 * for the worker dying or the database going away mid-attempt; the expiry covers the 10 s POST.
 */
export const webhookDeliveryJob = defineJob({
	name: 'webhook-delivery',
	schema: jobPayloads['webhook-delivery'],
	// waiting on receivers, not computing
	concurrency: 16,
	retryLimit: 8,
	retryDelaySeconds: 2,
	expireInSeconds: 60,
	handler: (data, { signal }) => deliverWebhook(data, { signal }),
})

/** Mails the owner of an endpoint that was disabled for failing. */
export const webhookDisabledMailJob = defineJob({
	name: 'webhook-disabled-mail',
	schema: jobPayloads['webhook-disabled-mail'],
	retryLimit: 10,
	retryDelaySeconds: 60,
	expireInSeconds: 120,
	handler: ({ endpointId }) => sendEndpointDisabledMail(endpointId),
})
