import { z } from 'zod'
import { MAX_LEADS_PER_REQUEST } from '../leads/schemas.ts'

export const MAX_DOMAINS = 50_000
export const COMPANY_PAY_WITH = ['apolloKey', 'apifyKey', 'credits'] as const

/** The create form's fields (the API's `POST /company-searches` takes them too). */
export const CreateCompaniesFields = z.object({
	intent: z.literal('create'),
	name: z
		.string({ error: 'Name the list' })
		.trim()
		.min(1, 'Name the list')
		.max(120, 'Use at most 120 characters'),
	workspaceId: z.uuid({ error: 'Choose a workspace' }).optional(),
	source: z.enum(['domains', 'apollo'], { error: 'Choose where the companies come from' }),
	domains: z.string().max(2_000_000, 'Paste at most 50,000 domains').optional(),
	file: z
		.instanceof(File)
		.optional()
		.refine((file) => !file || file.size <= 1_000_000, 'Use a CSV file of at most 1 MB'),
	url: z.string().trim().max(8000, 'This address is too long').optional(),
	count: z.coerce
		.number()
		.int('Use a whole number')
		.min(1, 'Ask for at least 1 company')
		.max(
			MAX_LEADS_PER_REQUEST,
			`Ask for at most ${MAX_LEADS_PER_REQUEST.toLocaleString('en')} companies at once`,
		)
		.optional(),
	payWith: z.enum(COMPANY_PAY_WITH, { error: 'Choose how to pay' }),
})

/** What each source needs: domains (or a file), or an Apollo address and a count. */
export function checkCompanySource(
	value: Pick<z.output<typeof CreateCompaniesFields>, 'source' | 'domains' | 'url' | 'count'> & {
		file?: File
	},
	ctx: z.RefinementCtx,
) {
	if (
		value.source === 'domains' &&
		!value.domains?.trim() &&
		!(value.file && value.file.size > 0)
	) {
		ctx.addIssue({
			code: 'custom',
			path: ['domains'],
			message: 'Paste company domains or choose a CSV file',
		})
	}
	if (value.source === 'apollo') {
		if (!value.url)
			ctx.addIssue({
				code: 'custom',
				path: ['url'],
				message: 'Paste an Apollo company search address',
			})
		if (!value.count)
			ctx.addIssue({ code: 'custom', path: ['count'], message: 'How many companies?' })
	}
}

export const CreateCompaniesSchema = CreateCompaniesFields.superRefine(checkCompanySource)
