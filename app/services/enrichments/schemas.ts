import { z } from 'zod'
import type { OutputField } from '../../integrations/openai.server.ts'
import { FILTER_SLOTS, ROW_CHOICES } from './run-filter.ts'
import { placeholders } from './template.ts'

export const OUTPUT_COLUMN = /^[a-z][a-z0-9_]{0,39}$/

const outputColumn = z
	.string({ error: 'Name the output column.' })
	.trim()
	.toLowerCase()
	.regex(OUTPUT_COLUMN, 'Lower-case letters, digits and _, starting with a letter (at most 40).')

/** "industry:string, employees:number" -> fields; errors name the bad part. */
export function parseOutputFields(text: string): { fields: OutputField[] } | { error: string } {
	const parts = text
		.split(/[,\n]/)
		.map((p) => p.trim())
		.filter(Boolean)
	if (parts.length === 0) return { error: 'Name at least one JSON field, e.g. industry:string.' }
	if (parts.length > 20) return { error: 'At most 20 JSON fields.' }
	const fields: OutputField[] = []
	for (const part of parts) {
		const [name = '', type = 'string'] = part.split(':').map((p) => p.trim())
		if (!/^[a-zA-Z][a-zA-Z0-9_]{0,39}$/.test(name))
			return {
				error: `“${name}” is not a field name: letters, digits and _, starting with a letter.`,
			}
		if (type !== 'string' && type !== 'number' && type !== 'boolean')
			return { error: `“${part}”: a field is a string, number or boolean.` }
		if (fields.some((f) => f.name === name)) return { error: `“${name}” appears twice.` }
		fields.push({ name, type })
	}
	return { fields }
}

export const EnrichmentFields = z
	.object({
		name: z
			.string({ error: 'Name the enrichment.' })
			.trim()
			.min(1, 'Name the enrichment.')
			.max(80, 'At most 80 characters.'),
		prompt: z
			.string({ error: 'Write the prompt.' })
			.trim()
			.min(1, 'Write the prompt.')
			.max(8000, 'At most 8,000 characters.')
			.refine((p) => placeholders(p).length > 0, {
				message: 'Use at least one {{column}} placeholder, e.g. {{company_name}}.',
			}),
		outputColumn,
		outputFormat: z.enum(['text', 'json'], { error: 'Choose text or JSON fields.' }),
		outputFields: z.string().trim().max(1000).optional(),
		model: z
			.string({ error: 'Name the model, e.g. gpt-4o-mini.' })
			.trim()
			.min(1, 'Name the model, e.g. gpt-4o-mini.')
			.max(120)
			.regex(/^[\w.:/@-]+$/, 'A model name has no spaces.'),
		// empty: the model's own default, and none is sent (gpt-5 and o-series refuse any other)
		temperature: z.coerce
			.number({ error: 'A number from 0 to 2, or empty for the model’s default.' })
			.min(0, 'A number from 0 to 2, or empty for the model’s default.')
			.max(2, 'A number from 0 to 2, or empty for the model’s default.')
			.optional()
			.transform((v) => v ?? null),
		listId: z.uuid().optional(),
	})
	.superRefine((value, ctx) => {
		if (value.outputFormat !== 'json') return
		const parsed = parseOutputFields(value.outputFields ?? '')
		if ('error' in parsed)
			ctx.addIssue({ code: 'custom', path: ['outputFields'], message: parsed.error })
	})

/** One form, two buttons: preview on 5 rows, or save (a new enrichment, or the one being edited). */
export const EnrichmentFormSchema = z.intersection(
	z.object({
		intent: z.enum(['create-enrichment', 'update-enrichment', 'preview']),
		id: z.uuid().optional(),
	}),
	EnrichmentFields,
)

export const DeleteSchema = z.object({
	intent: z.enum(['delete-enrichment', 'delete-chain']),
	id: z.uuid(),
})

export const STEP_KINDS = ['ai', 'email-guess', 'company-domain', 'verify-email'] as const
export const STEP_LABELS: Record<(typeof STEP_KINDS)[number], string> = {
	ai: 'AI enrichment',
	'email-guess': 'Email pattern guess (first.last@company domain)',
	'company-domain': 'Company domain from company name (checked with Apollo when you have a key)',
	'verify-email': 'Verify email (not verified: the email is dropped and the next finder runs)',
}

export const CATCH_ALL_POLICIES = ['safe', 'accept'] as const
export const CATCH_ALL_LABELS: Record<(typeof CATCH_ALL_POLICIES)[number], string> = {
	safe: 'Only safe to send: a catch-all email counts as not verified, so the next finder runs',
	accept: 'Accept catch-all: keep a catch-all email (it may bounce)',
}

/** The most steps a chain has (the builder starts with one and adds them on demand). */
export const CHAIN_STEP_SLOTS = 5

const ChainStep = z
	.object({
		kind: z.enum(['', ...STEP_KINDS]).default(''),
		enrichmentId: z.uuid().optional(),
		outputColumn: outputColumn.optional(),
		conditionColumn: z.string().trim().max(80).optional(),
		conditionOp: z.enum(['empty', 'not-empty', 'equals', 'contains']).optional(),
		conditionValue: z.string().trim().max(200).optional(),
	})
	.superRefine((step, ctx) => {
		if (step.kind === 'ai' && !step.enrichmentId)
			ctx.addIssue({ code: 'custom', path: ['enrichmentId'], message: 'Choose the AI enrichment.' })
		if (step.conditionColumn && !step.conditionOp)
			ctx.addIssue({ code: 'custom', path: ['conditionOp'], message: 'Choose how to compare.' })
	})

/** A new chain, or the one being edited (`id`). */
export const ChainFormSchema = z.object({
	intent: z.enum(['create-chain', 'update-chain']),
	id: z.uuid().optional(),
	name: z
		.string({ error: 'Name the chain.' })
		.trim()
		.min(1, 'Name the chain.')
		.max(80, 'At most 80 characters.'),
	catchAll: z
		.enum(CATCH_ALL_POLICIES, { error: 'Choose what a catch-all email counts as.' })
		.default('safe'),
	steps: z
		.array(ChainStep)
		.max(CHAIN_STEP_SLOTS)
		.default([])
		.refine((steps) => steps.some((s) => s.kind !== ''), { message: 'Add at least one step.' }),
})

const FILTER_OPS = ['empty', 'not-empty', 'equals', 'contains'] as const

/** One "only leads where" condition; a slot left blank is no condition. */
const FilterCondition = z
	.object({
		column: z.string().trim().max(120, 'At most 120 characters.').optional(),
		op: z
			.enum(FILTER_OPS, {
				error: 'Choose how to compare: is empty, is not empty, equals or contains.',
			})
			.optional(),
		value: z.string().trim().max(200, 'At most 200 characters.').optional(),
	})
	.superRefine((c, ctx) => {
		if (c.op && !c.column)
			ctx.addIssue({ code: 'custom', path: ['column'], message: 'Choose a column.' })
		if (c.column && !c.op)
			ctx.addIssue({ code: 'custom', path: ['op'], message: 'Choose how to compare.' })
		if ((c.op === 'equals' || c.op === 'contains') && !c.value)
			ctx.addIssue({ code: 'custom', path: ['value'], message: 'Enter a value to compare with.' })
	})

/** Which leads of the list a run takes (also read from the enrich page's URL). */
export const RunFilterSchema = z.object({
	q: z.string().trim().max(200, 'At most 200 characters.').optional(),
	where: z.array(FilterCondition).max(FILTER_SLOTS).default([]),
	only: z.enum(ROW_CHOICES, { error: 'Choose which leads.' }).default('all'),
})

export const RunSchema = z.object({
	intent: z.enum(['estimate', 'run']),
	target: z
		.string({ error: 'Choose an enrichment or a chain.' })
		.regex(/^(enrichment|chain):[0-9a-f-]{36}$/i, 'Choose an enrichment or a chain.'),
	payWith: z.enum(['ownKey', 'credits'], { error: 'Choose how to pay.' }),
	...RunFilterSchema.shape,
})

export const RunActionSchema = z.object({
	intent: z.enum(['cancel', 'retry-failed']),
	runId: z.uuid(),
})
