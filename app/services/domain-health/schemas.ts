import { z } from 'zod'

/** The health pages' forms: check one domain now, check all, record a DKIM selector. */
export const HealthActionSchema = z.discriminatedUnion('intent', [
	z.object({ intent: z.literal('check-now') }),
	z.object({ intent: z.literal('check-all') }),
	z.object({
		intent: z.literal('selector'),
		selector: z
			.string()
			.trim()
			.max(63, 'A selector is at most 63 characters.')
			.regex(
				/^[a-z0-9]([a-z0-9-_]*[a-z0-9])?$/i,
				'Letters, digits, - and _ only (e.g. google or s1).',
			)
			.optional(),
	}),
])
