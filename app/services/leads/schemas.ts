import { z } from 'zod'

export const MAX_LEADS_PER_REQUEST = 50_000

export const PAY_WITH = ['apifyKey', 'credits'] as const

export const CreateLeadsSchema = z.object({
	name: z
		.string({ error: 'Name the list' })
		.trim()
		.min(1, 'Name the list')
		.max(120, 'Use at most 120 characters'),
	url: z
		.string({ error: 'Paste an Apollo people search address' })
		.trim()
		.min(1, 'Paste an Apollo people search address')
		.max(8000, 'This address is too long'),
	templateId: z.uuid().optional(),
	workspaceId: z.uuid({ error: 'Choose a workspace' }).optional(),
	count: z.coerce
		.number({ error: 'How many leads?' })
		.int('Use a whole number')
		.min(1, 'Ask for at least 1 lead')
		.max(
			MAX_LEADS_PER_REQUEST,
			`Ask for at most ${MAX_LEADS_PER_REQUEST.toLocaleString('en')} leads at once`,
		),
	payWith: z.enum(PAY_WITH, { error: 'Choose how to pay' }),
})
export type CreateLeadsInput = z.infer<typeof CreateLeadsSchema>
