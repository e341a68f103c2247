import { z } from 'zod'
import { WEBHOOK_EVENT_TYPES } from './events.ts'

/** How long the previous secret keeps signing after a rotation (hours). */
export const ROTATION_OVERLAPS = [
	{ hours: 0, label: 'No overlap: the old secret stops now' },
	{ hours: 1, label: '1 hour' },
	{ hours: 24, label: '24 hours' },
	{ hours: 168, label: '7 days' },
] as const

export const CreateEndpointSchema = z.object({
	intent: z.literal('create'),
	url: z
		.url({
			protocol: /^https?$/,
			error: 'Enter the endpoint’s URL, e.g. https://example.com/hooks',
		})
		.max(500, 'At most 500 characters.'),
	description: z.string().trim().max(100, 'At most 100 characters.').optional(),
	// conform reads checkboxes of one name as an array (one checked: one item)
	events: z
		.array(z.enum(WEBHOOK_EVENT_TYPES, { error: 'Choose an event from the list.' }), {
			error: 'Choose at least one event.',
		})
		.min(1, 'Choose at least one event.')
		.max(WEBHOOK_EVENT_TYPES.length),
	workspaces: z
		.array(z.uuid({ error: 'Choose a workspace from the list.' }))
		.max(100)
		.default([]),
})
export type CreateEndpoint = z.infer<typeof CreateEndpointSchema>

export const EndpointActionSchema = z.object({
	intent: z.enum(['pause', 'resume', 'delete', 'test']),
	endpointId: z.uuid({ error: 'That endpoint does not exist.' }),
})

export const RotateSchema = z.object({
	intent: z.literal('rotate'),
	endpointId: z.uuid({ error: 'That endpoint does not exist.' }),
	overlapHours: z.coerce
		.number()
		.int()
		.refine((h) => ROTATION_OVERLAPS.some((o) => o.hours === h), 'Choose an overlap.')
		.default(24),
})

export const RedeliverSchema = z.object({
	intent: z.literal('redeliver'),
	endpointId: z.uuid({ error: 'That endpoint does not exist.' }),
	deliveryId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
})

export const ThresholdSchema = z.object({
	intent: z.literal('threshold'),
	creditsBelow: z.coerce
		.number({ error: 'Enter a whole number of credits.' })
		.int('Enter a whole number of credits.')
		.min(1, 'At least 1 credit.')
		.max(100_000_000, 'At most 100,000,000.')
		.optional(),
})
