import type { Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { cacheKey, COMPANY_FIELDS, LEAD_FIELDS } from './enrichments.server.ts'
import type { RunStep } from './run-enrichment.server.ts'
import type { RunFilter } from './run-filter.ts'
import { filteredCompanies, filteredLeads, type FilterTarget } from './run-filter.server.ts'
import {
	COMPANY_COLUMNS,
	conditionHolds,
	isEmptyValue,
	LEAD_COLUMNS,
	renderPrompt,
	type RowColumns,
	type RunRow,
} from './template.ts'

/**
 * Up to this many rows an estimate walks each row through the steps to know which answers
 * are cached (free); above it only the upper bound is known (every AI step of every row).
 */
export const EXACT_ESTIMATE_ROWS = 5000

/** Hashes per lookup query (a bounded `in` list). */
const LOOKUP_BATCH = 1000

export type PaidCalls = { calls: number; cached: number }

/**
 * The model calls a run would pay for if it started now: every row through the steps as
 * the run takes them (a step skipped when its condition does not hold or an earlier step
 * filled its column), with the answers already in the account's cache applied and free.
 * A step whose answer is not cached counts as a paid call; its output is unknown, so a
 * later step of the same column counts too (an upper bound there). Null when the rows are
 * more than EXACT_ESTIMATE_ROWS.
 */
export async function paidCallsNow(
	input: {
		accountId: string
		source: 'leads' | 'companies'
		target: FilterTarget
		filter: RunFilter
		steps: RunStep[]
		rows: number
	},
	executor: Kysely<DB> = db,
): Promise<PaidCalls | null> {
	const aiSteps = input.steps.filter((s) => s.kind === 'ai')
	if (aiSteps.length === 0) return { calls: 0, cached: 0 }
	if (input.rows > EXACT_ESTIMATE_ROWS) return null
	const rows = (input.source === 'companies'
		? await filteredCompanies(executor, input.target, input.filter)
				.select(COMPANY_FIELDS.map((f) => `companies.${f}` as const))
				.orderBy('companies.id')
				.limit(EXACT_ESTIMATE_ROWS + 1)
				.execute()
		: await filteredLeads(executor, input.target, input.filter)
				.select(LEAD_FIELDS.map((f) => `leads.${f}` as const))
				.orderBy('leads.id')
				.limit(EXACT_ESTIMATE_ROWS + 1)
				.execute()) as unknown as RunRow[]
	if (rows.length > EXACT_ESTIMATE_ROWS) return null
	const columns = (input.source === 'companies' ? COMPANY_COLUMNS : LEAD_COLUMNS) as RowColumns
	const hashOf = (step: Extract<RunStep, { kind: 'ai' }>, row: RunRow) =>
		cacheKey(renderPrompt(step.prompt, row, columns), step.model, step.format, step.temperature)

	// the answers known, looked up as the run prefetches them: each step rendered on the rows
	const asked = new Set<string>()
	for (const row of rows) for (const step of aiSteps) asked.add(hashOf(step, row))
	const answers = new Map<string, unknown>()
	const hashes = [...asked]
	for (let i = 0; i < hashes.length; i += LOOKUP_BATCH) {
		const found = await executor
			.selectFrom('enrichment_cache')
			.select(['hash', 'output'])
			.where('user_id', '=', input.accountId)
			.where('hash', 'in', hashes.slice(i, i + LOOKUP_BATCH))
			.execute()
		for (const f of found) answers.set(f.hash, f.output)
	}

	let calls = 0
	let cached = 0
	for (const stored of rows) {
		const row: RunRow = {
			...stored,
			data: { ...((stored.data as Record<string, unknown> | null) ?? {}) },
		} as RunRow
		const filled = new Set<string>()
		for (const step of input.steps) {
			if (filled.has(step.outputColumn)) continue
			if (!conditionHolds(step.condition, row, columns)) continue
			// built-in steps cost no credits
			if (step.kind !== 'ai') continue
			const hash = hashOf(step, row)
			if (!answers.has(hash)) {
				calls += 1
				continue
			}
			cached += 1
			const output = answers.get(hash)
			if (!isEmptyValue(output)) {
				filled.add(step.outputColumn)
				;(row.data as Record<string, unknown>)[step.outputColumn] = output
			}
		}
	}
	return { calls, cached }
}
