import { z } from 'zod'

/**
 * Every job kind's name and payload. Services queue jobs by name through enqueue.server.ts,
 * which reads only this: the definitions (handlers, which call services) stay out of the
 * services' imports, so jobs depend on services and never the other way.
 */
export const jobPayloads = {
	'subscription-renewal': z.object({}),
	'lead-scrape': z.object({ requestId: z.uuid() }),
	'company-scrape': z.object({ listId: z.uuid() }),
	'csv-import': z.object({ listId: z.uuid() }),
	'emailbison-upload': z.object({ uploadId: z.uuid() }),
	'dns-check': z.object({ domainIds: z.array(z.uuid()).min(1).max(100) }),
	'inbox-order': z.object({ orderId: z.uuid() }),
	enrich: z.object({ runId: z.uuid() }),
	'lead-page-marks': z.object({
		listId: z.uuid(),
		sort: z.enum(['added', 'email', 'first_name', 'last_name', 'company']),
	}),
	'check-server': z.object({}),
	'prune-form-submissions': z.object({}),
	'settle-ended-jobs': z.object({}),
	'notification-mail': z.object({ notificationId: z.number().int().positive() }),
	'bulk-action': z.object({ bulkId: z.uuid() }),
	'lead-remap': z.object({
		listId: z.uuid(),
		column: z.string().min(1).max(100),
		field: z.enum([
			'first_name',
			'last_name',
			'title',
			'company_name',
			'company_domain',
			'linkedin_url',
			'location',
			'phone',
			'email_status',
		]),
	}),
	verify: z.object({ runId: z.uuid() }),
	'domain-health': z.object({ domainIds: z.array(z.uuid()).min(1).max(100) }),
	'domain-health-daily': z.object({}),
	'webhook-delivery': z.object({
		deliveryId: z.number().int().positive(),
		// attempts made before this one: a job whose attempt was already recorded does nothing
		attempt: z.number().int().min(0),
	}),
	'webhook-disabled-mail': z.object({ endpointId: z.uuid() }),
	'dnc-sync': z.object({ runId: z.uuid() }),
	'dnc-sync-daily': z.object({}),
} as const

export type JobName = keyof typeof jobPayloads
export type JobPayload<N extends JobName> = z.infer<(typeof jobPayloads)[N]>
