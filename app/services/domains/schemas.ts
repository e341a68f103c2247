import { z } from 'zod'
import { bulkSelectionFields } from '../bulk/schemas.ts'

export const ImportDomainsSchema = z.object({
	domains: z.string().max(200_000, 'Paste at most 200,000 characters.').optional(),
	file: z
		.instanceof(File)
		.refine((f) => f.size <= 1_000_000, 'Upload a CSV of at most 1 MB.')
		.optional(),
})

export const ForwardSchema = z.object({
	intent: z.literal('forward'),
	domainId: z.string({ error: 'Pick a domain.' }),
	url: z.string({ error: 'Enter where the domain goes.' }).trim().min(1).max(2000),
	code: z.enum(['301', '302'], { error: 'Pick 301 or 302.' }),
	keepPath: z.boolean().default(false),
})

export const DomainRowActionSchema = z.object({
	intent: z.enum(['remove', 'check-dns', 'check-all', 'cancel', 'resume', 'delete']),
	id: z.string().optional(),
})

/** The domains table's bulk form (components/ui/bulk-toolbar.tsx). */
export const DomainBulkSchema = z.object({
	intent: z.literal('bulk'),
	action: z
		.string({ error: 'Pick an action.' })
		.regex(/^(check-dns|cancel|delete|move:[0-9a-f-]{36})$/, 'Pick an action.'),
	...bulkSelectionFields({ q: z.string().max(200).optional() }),
})
