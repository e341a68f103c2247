import { z } from 'zod'

// The re-map form (server and browser): one kept column of an imported list into one lead
// field. Email is not offered: it is the lead's identity in its list (unique, checked at import).

export const REMAP_FIELDS = [
	{ key: 'first_name', label: 'First name' },
	{ key: 'last_name', label: 'Last name' },
	{ key: 'title', label: 'Job title' },
	{ key: 'company_name', label: 'Company' },
	{ key: 'company_domain', label: 'Company domain' },
	{ key: 'linkedin_url', label: 'LinkedIn URL' },
	{ key: 'location', label: 'Location' },
	{ key: 'phone', label: 'Phone' },
	{ key: 'email_status', label: 'Email status' },
] as const

export type RemapField = (typeof REMAP_FIELDS)[number]['key']

export const RemapSchema = z.object({
	intent: z.literal('remap'),
	column: z.string({ error: 'Choose a column' }).min(1, 'Choose a column').max(100),
	field: z.enum(REMAP_FIELDS.map((f) => f.key) as [RemapField, ...RemapField[]], {
		error: 'Choose the lead field it goes into',
	}),
})

export type RemapInput = z.infer<typeof RemapSchema>
