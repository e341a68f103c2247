import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { BulkOutcome } from '../bulk/types.ts'

const RUNNING = [0, 1]

/**
 * Deletes rows of lists that are not being filled and counts them out of their lists, in one
 * statement: a lead list's leads or a company list's companies (the list kinds' tables).
 */
export async function deleteRowsOfLists(
	tables: { rows: 'leads' | 'companies'; lists: 'processing_list' | 'company_scraping_list' },
	ids: string[],
) {
	const outcomes = new Map<string, BulkOutcome>()
	if (ids.length === 0) return outcomes
	const { rows: gone } = await sql<{ id: string }>`
		with gone as (
			delete from ${sql.table(tables.rows)}
			where id = any(${ids}::uuid[])
				and list_id in (select id from ${sql.table(tables.lists)} where status <> all(${RUNNING}::int[]))
			returning id, list_id
		), counted as (
			update ${sql.table(tables.lists)} l
			set found = greatest(l.found - g.n, 0), updated_at = now()
			from (select list_id, count(*)::int as n from gone group by list_id) g
			where l.id = g.list_id
		)
		select id from gone
	`.execute(db)
	const deleted = new Set(gone.map((r) => r.id))
	for (const id of ids) outcomes.set(id, deleted.has(id) ? 'done' : { skipped: 'already deleted' })
	return outcomes
}
