import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { ofList, searchCondition } from '../lists/leads-page.server.ts'
import { knownColumns } from './enrichments.server.ts'
import { WHOLE_LIST, type RowChoice, type RunFilter } from './run-filter.ts'
import { LEAD_COLUMNS, type Condition } from './template.ts'

export type RunFilterInput = {
	q?: string
	where?: { column?: string; op?: Condition['op']; value?: string }[]
	only?: RowChoice
}

/**
 * The filter as a run keeps it. Blank condition slots are dropped; a column that is not a
 * lead column, an enrichment output or a key of this list's leads is a field error at its
 * slot (a misspelt column would otherwise "be empty" on every lead).
 */
export async function checkFilter(
	account: AccountContext,
	listId: string,
	input: RunFilterInput | undefined,
): Promise<RunFilter> {
	if (!input) return WHOLE_LIST
	const where: Condition[] = []
	const slots = input.where ?? []
	const columns = slots.some((s) => s.column) ? await knownColumns(account, listId) : []
	slots.forEach((slot, i) => {
		if (!slot.column && !slot.op) return
		if (!slot.column) throw new FormError('Choose a column.', `where[${i}].column`)
		if (!columns.includes(slot.column))
			throw new FormError(
				`Unknown column: ${slot.column}. Choose a lead column or an output.`,
				`where[${i}].column`,
			)
		if (!slot.op) throw new FormError('Choose how to compare.', `where[${i}].op`)
		const needsValue = slot.op === 'equals' || slot.op === 'contains'
		if (needsValue && !slot.value?.trim())
			throw new FormError('Enter a value to compare with.', `where[${i}].value`)
		where.push(
			needsValue
				? { column: slot.column, op: slot.op, value: slot.value!.trim() }
				: { column: slot.column, op: slot.op },
		)
	})
	return { q: input.q?.trim() ?? '', where, only: input.only ?? 'all' }
}

/** A column's text for a lead, as template.ts's columnValue reads it, in SQL. */
function columnText(column: string): RawBuilder<string | null> {
	if (column === 'full_name') return sql`nullif(concat_ws(' ', first_name, last_name), '')`
	if ((LEAD_COLUMNS as readonly string[]).includes(column)) return sql`${sql.ref(column)}`
	const dot = column.indexOf('.')
	if (dot > 0)
		return sql`(case when data ? ${column} then data->>${column}
			else data->${column.slice(0, dot)}->>${column.slice(dot + 1)} end)`
	return sql`(data->>${column})`
}

function isEmpty(column: string) {
	const text = columnText(column)
	return sql<boolean>`(${text} is null or btrim(${text}) = '')`
}

/** A condition in SQL, with conditionHolds's meaning (trimmed, case-insensitive). */
function conditionSql(c: Condition) {
	const text = sql`lower(coalesce(${columnText(c.column)}, ''))`
	const value = (c.value ?? '').trim().toLowerCase()
	switch (c.op) {
		case 'empty':
			return isEmpty(c.column)
		case 'not-empty':
			return sql<boolean>`not ${isEmpty(c.column)}`
		case 'equals':
			return sql<boolean>`btrim(${text}) = ${value}`
		case 'contains':
			return sql<boolean>`strpos(${text}, ${value}) > 0`
	}
}

export type FilterTarget = {
	listId: string
	accountId: string
	enrichmentId: string | null
	chainId: string | null
	outputColumns: string[]
	/** the run whose rows are being written: its own rows do not count as "last time" */
	runId?: string
}

/**
 * The list's leads a filter takes, as a query on `leads` to select from. "Failed" reads each
 * lead's row in the latest run of the same enrichment or chain that took it: failed, or left
 * unfinished by a run that ended (cancelled or stopped).
 */
export function filteredLeads(executor: Kysely<DB>, target: FilterTarget, filter: RunFilter) {
	let query = executor.selectFrom('leads').where(ofList(target.listId))
	if (filter.q) query = query.where(searchCondition(filter.q))
	for (const c of filter.where) query = query.where(conditionSql(c))
	if (filter.only === 'failed') {
		const sameTarget = target.chainId
			? sql`e.chain_id = ${target.chainId}`
			: sql`e.enrichment_id = ${target.enrichmentId}`
		const otherRun = target.runId ? sql`e.id <> ${target.runId}` : sql`true`
		query = query.where(
			sql<boolean>`leads.id in (
				select last.lead_id from (
					select distinct on (r.lead_id) r.lead_id, r.status, e.status as run_status
					from enrichment_run_rows r join enrichment_runs e on e.id = r.run_id
					where e.list_id = ${target.listId} and e.user_id = ${target.accountId} and ${sameTarget}
						and ${otherRun}
					order by r.lead_id, e.created_at desc
				) last
				where last.status = 3 or (last.status in (0, 1) and last.run_status = 3))`,
		)
	}
	if (filter.only === 'empty-output' && target.outputColumns.length > 0)
		query = query.where(
			sql<boolean>`(${sql.join(
				target.outputColumns.map((c) => isEmpty(c)),
				sql` or `,
			)})`,
		)
	return query
}
