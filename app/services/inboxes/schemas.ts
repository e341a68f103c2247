import { z } from 'zod'
import { ADDRESS_PATTERNS } from './personas.ts'
import { bulkSelectionFields } from '../bulk/schemas.ts'

export const PROVIDER_LIMITS = { google: 5, microsoft: 50 } as const
export type InboxProvider = keyof typeof PROVIDER_LIMITS

/** An inbox order as the ordering form (and the checkout link) carries it. */
export const InboxOrderSchema = z
	.object({
		// Plain arrays: conform turns a checkbox group with nothing (or one thing) ticked into a
		// list on both sides, so the client and the server report the same errors.
		domainIds: z
			.array(z.string().trim())
			.min(1, 'Pick at least one domain.')
			.max(200, 'Order for at most 200 domains at a time.'),
		provider: z.enum(['google', 'microsoft'], { error: 'Pick Google or Microsoft.' }),
		inboxesPerDomain: z.coerce
			.number({ error: 'Enter how many inboxes each domain gets.' })
			.int('Enter a whole number.')
			.min(1, 'Each domain needs at least 1 inbox.'),
		personas: z
			.string({ error: 'Type persona names or generate some.' })
			.trim()
			.min(1, 'Type persona names or generate some.')
			.max(20_000),
		patterns: z
			.array(z.enum(ADDRESS_PATTERNS, { error: 'Pick address patterns from the list.' }))
			.min(1, 'Pick at least one address pattern.')
			.max(ADDRESS_PATTERNS.length, 'Pick address patterns from the list.'),
	})
	.superRefine((value, ctx) => {
		const limit = PROVIDER_LIMITS[value.provider]
		if (value.inboxesPerDomain > limit) {
			ctx.addIssue({
				code: 'custom',
				path: ['inboxesPerDomain'],
				message: `${value.provider === 'google' ? 'Google' : 'Microsoft'} takes 1 to ${limit} inboxes a domain.`,
			})
		}
	})

export type InboxOrderInput = z.infer<typeof InboxOrderSchema>

export const OrderingIntentSchema = z.enum(['quote'])

/** The inbox orders table's bulk form (components/ui/bulk-toolbar.tsx): cancel only. */
export const InboxOrderBulkSchema = z.object({
	intent: z.literal('bulk'),
	action: z.enum(['cancel'], { error: 'Pick an action.' }),
	...bulkSelectionFields({}),
})
