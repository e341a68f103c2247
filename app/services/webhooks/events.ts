import { z } from 'zod'

/**
 * Every webhook event's JSON body: `{ id, type, timestamp, data }` (the Standard Webhooks
 * envelope, with our event id). The OpenAPI document's webhooks section is generated from
 * `webhookEventSchemas`; deliveries are built from the same schemas (events.server checks
 * each body against its schema before it is stored), so the document cannot drift from what
 * is sent.
 */

const finishedStatus = z
	.enum(['done', 'failed'])
	.describe('done: it finished; failed: it stopped, with `error` saying why')
const workspace = z.uuid().nullable().describe('the workspace it belongs to (null: the account)')
const error = z.string().nullable().describe('what the person sees when it failed')
const healthStatus = z
	.enum(['healthy', 'warning', 'failing'])
	.describe('healthy: every check passed; warning: one needs attention; failing: one failed')
const healthGrade = z.enum(['A', 'B', 'C', 'D', 'F']).nullable()

export const webhookEventData = {
	'list_import.finished': z.object({
		list_id: z.uuid(),
		name: z.string(),
		workspace_id: workspace,
		status: finishedStatus,
		leads_imported: z.number().int(),
		error,
	}),
	'scrape.finished': z.object({
		kind: z.enum(['leads', 'companies']),
		list_id: z.uuid(),
		name: z.string(),
		workspace_id: workspace,
		status: finishedStatus,
		found: z.number().int(),
		error,
	}),
	'enrichment_run.finished': z.object({
		run_id: z.uuid(),
		name: z.string(),
		workspace_id: workspace,
		list_id: z.uuid().nullable(),
		company_list_id: z.uuid().nullable(),
		status: finishedStatus,
		rows_done: z.number().int(),
		rows_failed: z.number().int(),
		error,
	}),
	'verification.finished': z.object({
		run_id: z.uuid(),
		list_id: z.uuid(),
		workspace_id: workspace,
		status: z.enum(['done', 'failed', 'cancelled']),
		checked: z.number().int(),
		error,
	}),
	'emailbison_upload.finished': z.object({
		upload_id: z.uuid(),
		list_id: z.uuid().nullable(),
		workspace_id: workspace,
		status: finishedStatus,
		campaign_name: z.string().nullable(),
		sent: z.number().int(),
		rejected: z.number().int(),
		error,
	}),
	'job.failed': z.object({
		job: z.enum([
			'list_import',
			'lead_scrape',
			'company_scrape',
			'enrichment_run',
			'verification',
			'emailbison_upload',
			'inbox_order',
		]),
		id: z.uuid().describe('the list, run, upload or order that failed'),
		workspace_id: workspace,
		reason: z.string().describe('the reason the person sees in the app'),
	}),
	'credits.below_threshold': z.object({
		balance: z.number().int(),
		threshold: z.number().int(),
	}),
	'inbox_order.fulfilled': z.object({
		order_id: z.uuid(),
		workspace_id: workspace,
		provider: z.string(),
		inboxes: z.number().int(),
	}),
	'domain.status_changed': z.object({
		domain_id: z.uuid(),
		name: z.string(),
		workspace_id: workspace,
		previous_status: z.string(),
		status: z.string().describe('active or expired'),
	}),
	'domain.health_changed': z.object({
		domain_id: z.uuid(),
		name: z.string(),
		workspace_id: workspace,
		previous_status: healthStatus.describe(
			'at the last check that could check everything it failed',
		),
		status: healthStatus,
		previous_grade: healthGrade,
		grade: healthGrade,
		score: z.number().int().nullable().describe('0-100'),
		failing_checks: z
			.array(z.enum(['mx', 'spf', 'dkim', 'dmarc', 'domain-blocklists', 'ip-blocklists']))
			.describe('the checks that failed (the page shows the records that fix them)'),
		link: z.string().describe('the domain’s health page in the app'),
	}),
	'webhook.test': z.object({
		endpoint_id: z.uuid(),
		message: z.string(),
	}),
} as const

export type WebhookEventType = keyof typeof webhookEventData
export type WebhookEventData<T extends WebhookEventType> = z.infer<(typeof webhookEventData)[T]>

/** The events a person subscribes an endpoint to (the test event goes to any endpoint). */
export const WEBHOOK_EVENT_TYPES = [
	'list_import.finished',
	'scrape.finished',
	'enrichment_run.finished',
	'verification.finished',
	'emailbison_upload.finished',
	'job.failed',
	'credits.below_threshold',
	'inbox_order.fulfilled',
	'domain.status_changed',
	'domain.health_changed',
] as const satisfies readonly WebhookEventType[]

export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
	'list_import.finished': 'A list import finished',
	'scrape.finished': 'A lead or company search finished',
	'enrichment_run.finished': 'An enrichment run finished',
	'verification.finished': 'An email verification finished',
	'emailbison_upload.finished': 'An EmailBison upload finished',
	'job.failed': 'Any job failed (with the reason)',
	'credits.below_threshold': 'Credits fell below your threshold',
	'inbox_order.fulfilled': 'An inbox order was fulfilled',
	'domain.status_changed': 'A domain’s status changed',
	'domain.health_changed': 'A domain’s health changed (healthy, needs attention, failing)',
	'webhook.test': 'Test event',
}

function envelope<T extends WebhookEventType>(type: T) {
	return z
		.object({
			id: z.string().describe('the event id; also the `webhook-id` header (msg_…)'),
			type: z.literal(type),
			timestamp: z.iso.datetime().describe('when the change was committed'),
			data: webhookEventData[type],
		})
		.meta({ id: `webhook_${type.replace('.', '_')}`, description: WEBHOOK_EVENT_LABELS[type] })
}

/** Each event's full body, by type (for the OpenAPI document's `webhooks`). */
export const webhookEventSchemas = Object.fromEntries(
	(Object.keys(webhookEventData) as WebhookEventType[]).map((type) => [type, envelope(type)]),
) as { [T in WebhookEventType]: ReturnType<typeof envelope<T>> }
