import { z } from 'zod'
import { MAX_FIELD } from '../imports/copy-format.ts'
import { cleanEmail } from '../imports/mapping.ts'

// A lead's edit form (shared by the server and the browser): the lead fields an import fills,
// each trimmed, empty as undefined (cleared), at most as long as an import keeps them.

const optional = z
	.string()
	.trim()
	.max(MAX_FIELD, `Use at most ${MAX_FIELD} characters`)
	.optional()
	.transform((value) => value || undefined)

export const LeadEditSchema = z.object({
	intent: z.literal('save'),
	email: z
		.string({ error: 'Enter the email address' })
		.trim()
		.min(1, 'Enter the email address')
		.max(254, 'Use at most 254 characters')
		.refine((value) => cleanEmail(value) !== null, 'Enter a valid email address'),
	first_name: optional,
	last_name: optional,
	title: optional,
	company_name: optional,
	company_domain: optional,
	linkedin_url: optional,
	location: optional,
	phone: optional,
	email_status: optional,
})

export type LeadEditInput = z.infer<typeof LeadEditSchema>

export const LeadDeleteSchema = z.object({ intent: z.literal('delete') })

export const LeadActionSchema = z.discriminatedUnion('intent', [LeadEditSchema, LeadDeleteSchema])
