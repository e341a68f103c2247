import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { searchCondition as companySearchCondition } from '../lists/companies-page.server.ts'
import { ofList } from '../lists/lead-order.server.ts'
import { searchCondition } from '../lists/leads-page.server.ts'
import { knownColumns } from './enrichments.server.ts'
import { WHOLE_LIST, type RowChoice, type RunFilter } from './run-filter.ts'
import { COMPANY_COLUMNS, LEAD_COLUMNS, type Condition, type RowColumns } from './template.ts'
import { notSuppressedInList } from '../do-not-contact/match.server.ts'

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
	/** a company list's columns, when the run is on one */
	companyColumns?: () => Promise<string[]>,
): Promise<RunFilter> {
	if (!input) return WHOLE_LIST
	const where: Condition[] = []
	const slots = input.where ?? []
	const columns = slots.some((s) => s.column)
		? companyColumns
			? await companyColumns()
			: await knownColumns(account, listId)
		: []
	slots.forEach((slot, i) => {
		if (!slot.column && !slot.op) return
		if (!slot.column) throw new FormError('Choose a column.', `where[${i}].column`)
		if (!columns.includes(slot.column))
			throw new FormError(
				`Unknown column: ${slot.column}. Choose a ${companyColumns ? 'company' : 'lead'} column or an output.`,
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

/** A column's text for a row, as template.ts's columnValue reads it, in SQL. */
function columnText(column: string, columns: RowColumns = LEAD_COLUMNS): RawBuilder<string | null> {
	if (column === 'full_name' && columns === LEAD_COLUMNS)
		return sql`nullif(concat_ws(' ', first_name, last_name), '')`
	if (column === 'employees' && columns === COMPANY_COLUMNS) return sql`employees::text`
	if (columns.includes(column)) return sql`${sql.ref(column)}`
	const dot = column.indexOf('.')
	if (dot > 0)
		return sql`(case when data ? ${column} then data->>${column}
			else data->${column.slice(0, dot)}->>${column.slice(dot + 1)} end)`
	return sql`(data->>${column})`
}

function isEmpty(column: string, columns?: RowColumns) {
	const text = columnText(column, columns)
	return sql<boolean>`(${text} is null or btrim(${text}) = '')`
}

/** A condition in SQL, with conditionHolds's meaning (trimmed, case-insensitive). */
function conditionSql(c: Condition, columns?: RowColumns) {
	const text = sql`lower(coalesce(${columnText(c.column, columns)}, ''))`
	const value = (c.value ?? '').trim().toLowerCase()
	switch (c.op) {
		case 'empty':
			return isEmpty(c.column, columns)
		case 'not-empty':
			return sql<boolean>`not ${isEmpty(c.column, columns)}`
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
	// do-not-contact: suppressed leads are never enriched or verified, nor counted or charged
	query = query.where(notSuppressedInList(target.accountId, target.listId))
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

/**
 * The same for a company list's companies: the company page's search (start of the name or
 * the domain), conditions on company columns and data keys, and which rows, where "failed"
 * reads the company rows of the latest run of the same enrichment or chain on this list.
 */
export function filteredCompanies(executor: Kysely<DB>, target: FilterTarget, filter: RunFilter) {
	let query = executor.selectFrom('companies').where(ofList(target.listId, 'companies'))
	if (filter.q) query = query.where(companySearchCondition(filter.q))
	for (const c of filter.where) query = query.where(conditionSql(c, COMPANY_COLUMNS))
	if (filter.only === 'failed') {
		const sameTarget = target.chainId
			? sql`e.chain_id = ${target.chainId}`
			: sql`e.enrichment_id = ${target.enrichmentId}`
		const otherRun = target.runId ? sql`e.id <> ${target.runId}` : sql`true`
		query = query.where(
			sql<boolean>`companies.id in (
				select last.company_id from (
					select distinct on (r.company_id) r.company_id, r.status, e.status as run_status
					from enrichment_company_rows r join enrichment_runs e on e.id = r.run_id
					where e.company_list_id = ${target.listId} and e.user_id = ${target.accountId}
						and ${sameTarget} and ${otherRun}
					order by r.company_id, e.created_at desc
				) last
				where last.status = 3 or (last.status in (0, 1) and last.run_status = 3))`,
		)
	}
	if (filter.only === 'empty-output' && target.outputColumns.length > 0)
		query = query.where(
			sql<boolean>`(${sql.join(
				target.outputColumns.map((c) => isEmpty(c, COMPANY_COLUMNS)),
				sql` or `,
			)})`,
		)
	return query
}
