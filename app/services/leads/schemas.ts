import { z } from 'zod'

export const MAX_LEADS_PER_REQUEST = 50_000

export const PAY_WITH = ['apifyKey', 'credits'] as const

/** The create form's fields, which the API's `POST /lead-scrapes` takes too. */
export const CreateLeadsFields = {
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
}

/** From a pasted search address, or from a saved template whose {{placeholders}} come in as fill.<name>. */
export const CreateLeadsSchema = z
	.object({
		intent: z.literal('create'),
		...CreateLeadsFields,
		url: z.string().trim().max(8000, 'This address is too long').optional(),
		templateId: z.uuid().optional(),
		fill: z
			.record(
				z.string(),
				z.string({ error: 'Fill this in' }).trim().min(1, 'Fill this in').max(500),
			)
			.optional(),
	})
	.superRefine((value, ctx) => {
		if (!value.templateId && !value.url) {
			ctx.addIssue({
				code: 'custom',
				path: ['url'],
				message: 'Paste an Apollo people search address',
			})
		}
	})

export type CreateLeadsInput = {
	name: string
	url: string
	count: number
	payWith: (typeof PAY_WITH)[number]
	workspaceId: string | null
}

export const PreviewSearchSchema = z.object({
	intent: z.literal('preview'),
	url: z
		.string({ error: 'Paste an Apollo people search address' })
		.trim()
		.min(1, 'Paste an Apollo people search address'),
})

export const SaveTemplateSchema = z.object({
	intent: z.literal('save-template'),
	templateName: z
		.string({ error: 'Name the template' })
		.trim()
		.min(1, 'Name the template')
		.max(80, 'Use at most 80 characters'),
	templateUrl: z
		.string({ error: 'Paste the address with {{placeholders}}' })
		.trim()
		.min(1, 'Paste the address with {{placeholders}}')
		.max(8000, 'This address is too long'),
})

export const DeleteTemplateSchema = z.object({
	intent: z.literal('delete-template'),
	templateId: z.uuid(),
})
