// Which leads of a list a run takes: the list page's search, column conditions and a choice
// of rows (those a previous run failed, or those whose output is still empty). Shared by the
// server and the enrich page.
import { CONDITION_LABELS, type Condition } from './template.ts'

export const FILTER_SLOTS = 3

export const ROW_CHOICES = ['all', 'failed', 'empty-output'] as const
export type RowChoice = (typeof ROW_CHOICES)[number]

export const ROW_CHOICE_LABELS: Record<RowChoice, { label: string; description?: string }> = {
	all: { label: 'Every matching lead' },
	failed: {
		label: 'Only leads that failed last time',
		description: 'Their last run of the chosen enrichment or chain failed or did not finish.',
	},
	'empty-output': {
		label: 'Only leads whose output is still empty',
		description: 'For a chain: any of its output columns.',
	},
}

/** The same choices on a company list. */
export const COMPANY_ROW_CHOICE_LABELS: Record<RowChoice, { label: string; description?: string }> =
	{
		all: { label: 'Every matching company' },
		failed: {
			label: 'Only companies that failed last time',
			description: 'Their last run of the chosen enrichment or chain failed or did not finish.',
		},
		'empty-output': {
			label: 'Only companies whose output is still empty',
			description: 'For a chain: any of its output columns.',
		},
	}

export type RunFilter = { q: string; where: Condition[]; only: RowChoice }

export const WHOLE_LIST: RunFilter = { q: '', where: [], only: 'all' }

export function isWholeList(filter: RunFilter | null | undefined) {
	return !filter || (!filter.q && filter.where.length === 0 && filter.only === 'all')
}

/** The filter in words, one part each, e.g. `title contains “ceo”`; empty for the whole list. */
export function describeFilter(filter: RunFilter | null | undefined) {
	if (!filter) return []
	const parts: string[] = []
	if (filter.q) parts.push(`search “${filter.q}”`)
	for (const c of filter.where)
		parts.push(
			`${c.column} ${CONDITION_LABELS[c.op]}${c.op === 'equals' || c.op === 'contains' ? ` “${c.value ?? ''}”` : ''}`,
		)
	if (filter.only === 'failed') parts.push('last run failed')
	if (filter.only === 'empty-output') parts.push('output column empty')
	return parts
}
