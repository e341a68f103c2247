import { z } from 'zod'

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
	intent: z.enum(['remove', 'check-dns', 'check-all', 'cancel', 'resume']),
	id: z.string().optional(),
})
