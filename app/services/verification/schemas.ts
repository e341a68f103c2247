import { z } from 'zod'

// The verify page's forms (shared by the server and the browser).

export const VERIFY_ONLY = ['unverified', 'unknown', 'all'] as const
export const VERIFY_ONLY_LABELS: Record<(typeof VERIFY_ONLY)[number], string> = {
	unverified: 'Only leads not verified yet',
	unknown: 'Leads not verified yet, and those whose answer was unknown',
	all: 'Every lead (answers from the last days are reused, free)',
}

export const PAY_WITH = ['credits', 'millionverifier', 'zerobounce', 'reacher'] as const

export const VerifySchema = z.object({
	intent: z.enum(['estimate', 'run']),
	payWith: z.enum(PAY_WITH, { error: 'Choose how to pay.' }),
	only: z.enum(VERIFY_ONLY, { error: 'Choose which leads.' }),
	q: z.string().trim().max(200, 'At most 200 characters.').optional(),
})

export const CancelVerifySchema = z.object({
	intent: z.literal('cancel'),
	runId: z.uuid(),
})
