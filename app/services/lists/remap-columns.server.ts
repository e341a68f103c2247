import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { MAX_FIELD } from '../imports/copy-format.ts'
import { findLeadList } from './find-list.server.ts'
import { REMAP_FIELDS, type RemapField, type RemapInput } from './remap-schema.ts'

/** Lists up to this many leads are re-mapped in the request; bigger ones by a job. */
export const remapTuning = { inlineMax: 20_000 }

/**
 * The columns an import kept with its leads (leads.data, by header) that can still be mapped
 * to a lead field: the import's own record of them (csv_imports.mapping.extra), without
 * reading the list's rows.
 */
export async function keptColumns(context: AccountContext | null, listId: unknown) {
	const { list } = await findLeadList(context, listId)
	const row = await db
		.selectFrom('csv_imports')
		.select('mapping')
		.where('list_id', '=', list.id)
		.executeTakeFirst()
	const mapping = row?.mapping as { extra?: [number, string][]; keepExtra?: boolean } | undefined
	const columns = mapping?.keepExtra ? (mapping.extra ?? []).map(([, name]) => name) : []
	return { list, columns }
}

/**
 * Moves one kept column into a lead field over the whole list (decision 0081): one UPDATE ...
 * in PostgreSQL for every lead that has it, in the request for a small list, by the lead-remap
 * job for a big one. The value replaces the field's; leads without it keep theirs.
 */
export async function remapKeptColumn(
	context: AccountContext | null,
	listId: unknown,
	input: RemapInput,
) {
	const { list, columns } = await keptColumns(context, listId)
	if (list.status === 0 || list.status === 1) {
		throw new FormError('This list is still being imported. Map its columns once it has finished.')
	}
	if (!columns.includes(input.column)) {
		throw new FormError('This list keeps no column of that name', 'column')
	}
	if (list.found > remapTuning.inlineMax) {
		await enqueue(
			'lead-remap',
			{ listId: list.id, column: input.column, field: input.field },
			{ singletonKey: `${list.id}:${input.column}` },
		)
		return { queued: true, leads: list.found }
	}
	const leads = await runRemap(list.id, input.column, input.field)
	return { queued: false, leads }
}

/**
 * The re-map itself, in one transaction: the leads' field from the column (trimmed, cut as an
 * import cuts it, a domain normalised), the column out of their data and out of the import's
 * kept columns, and the list's page marks dropped when the field is one the list sorts by.
 * Idempotent: a second run finds no lead with the column. Returns the leads changed.
 */
export async function runRemap(
	listId: string,
	column: string,
	field: RemapField,
	executor: Kysely<DB> = db,
) {
	if (!REMAP_FIELDS.some((f) => f.key === field)) throw new Error(`not a lead field: ${field}`)
	const raw = sql`left(nullif(btrim(data ->> ${column}), ''), ${MAX_FIELD})`
	const value = field === 'company_domain' ? sql`normalize_company_domain(${raw})` : raw
	return inTransaction(executor, async (trx) => {
		const updated = await trx
			.updateTable('leads')
			.set({ [field]: value, data: sql`data - ${column}::text` })
			.where('list_id', '=', listId)
			.where(sql<boolean>`data ? ${column}::text`)
			.executeTakeFirst()
		await sql`
			update csv_imports set mapping = jsonb_set(mapping, '{extra}', coalesce((
				select jsonb_agg(e order by n)
				from jsonb_array_elements(mapping -> 'extra') with ordinality as x(e, n)
				where e ->> 1 <> ${column}
			), '[]'::jsonb))
			where list_id = ${listId}`.execute(trx)
		if (['first_name', 'last_name', 'company_name'].includes(field)) {
			await trx.deleteFrom('lead_page_marks').where('list_id', '=', listId).execute()
		}
		return Number(updated.numUpdatedRows)
	})
}
