import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { comparedTo, listOrder, ofList, sortKeyOf, type Cursor } from './lead-order.server.ts'
import type { LeadSort } from './list-kinds.ts'

/**
 * Every how many leads a finished list keeps a mark per order: a typed page number far from
 * both ends starts from the mark before it, so it walks at most this many index entries
 * instead of up to half the list (decision 0045).
 */
export const MARK_EVERY = 5_000

type MarkedList = { id: string; found: number }

/**
 * The lead at `position` (from 0) of a finished list in this order, read from the nearest
 * mark before it: null past the end, undefined when the list has no marks for its present
 * size (not asked for yet, being built, or stale).
 */
export async function rowFromMarks(
	list: MarkedList,
	sort: LeadSort,
	descending: boolean,
	position: number,
): Promise<Cursor | null | undefined> {
	const marks = await db
		.selectFrom('lead_page_marks')
		.select(['found', 'rows', 'every', 'keys', 'ids'])
		.where('list_id', '=', list.id)
		.where('sort', '=', sort)
		.where('built_at', 'is not', null)
		.executeTakeFirst()
	if (!marks || marks.found !== list.found || !marks.rows || !marks.every || !marks.ids) {
		return undefined
	}
	// the marks count in ascending order; a descending page counts from the other end
	const ascending = descending ? marks.rows - 1 - position : position
	if (ascending < 0 || ascending >= marks.rows) return null
	const n = Math.min(Math.floor(ascending / marks.every), marks.ids.length - 1)
	const mark: Cursor = {
		key: (marks.keys as (string[] | null)[] | null)?.[n] ?? null,
		id: marks.ids[n]!,
	}
	const row = await db
		.selectFrom('leads')
		.select(sortKeyOf(sort).as('key'))
		.select('id')
		.where(ofList(list.id))
		.where(comparedTo(sort, mark, '>='))
		.orderBy(listOrder(sort, true))
		.offset(ascending - n * marks.every)
		.limit(1)
		.executeTakeFirst()
	return row ? { key: row.key, id: row.id } : undefined
}

/**
 * Asks for a finished list's marks in one order, once: a job builds them. Asked again when the
 * list's size changed since, or when a request went unanswered for ten minutes.
 */
export async function requestPageMarks(list: MarkedList, sort: Exclude<LeadSort, 'verify'>) {
	await db.transaction().execute(async (trx) => {
		const { rows } = await sql<{ list_id: string }>`
			insert into lead_page_marks (list_id, sort, found) values (${list.id}, ${sort}, ${list.found})
			on conflict (list_id, sort) do update
			set found = excluded.found, rows = null, every = null, keys = null, ids = null,
				built_at = null, requested_at = now()
			where lead_page_marks.found <> excluded.found
				or (lead_page_marks.built_at is null
					and lead_page_marks.requested_at < now() - interval '10 minutes')
			returning list_id`.execute(trx)
		if (rows.length) await enqueue('lead-page-marks', { listId: list.id, sort }, { db: trx })
	})
}

/**
 * The lead-page-marks job: every MARK_EVERY-th lead of a finished list in one order, in one
 * walk of the list's index for that order. Idempotent (it writes the whole row each time).
 */
export async function buildPageMarks(listId: string, sort: LeadSort) {
	const list = await db
		.selectFrom('processing_list')
		.select(['found', 'status'])
		.where('id', '=', listId)
		.executeTakeFirst()
	// a deleted list took its marks with it
	if (!list) return
	if (list.status < 2) {
		// still being written to: asked for again once finished
		await db
			.deleteFrom('lead_page_marks')
			.where('list_id', '=', listId)
			.where('sort', '=', sort)
			.execute()
		return
	}
	const [{ rows: marks }, { rows: counted }] = await Promise.all([
		sql<{ key: string[] | null; id: string }>`
			select key, id from (
				select ${sortKeyOf(sort)} as key, id,
					row_number() over (order by ${listOrder(sort, true)}) - 1 as n
				from leads where ${ofList(listId)}
			) walked
			where n % ${MARK_EVERY} = 0
			order by n`.execute(db),
		sql<{ n: number }>`select count(*)::int as n from leads where ${ofList(listId)}`.execute(db),
	])
	const rows = counted[0]!.n
	await sql`
		insert into lead_page_marks (list_id, sort, found, rows, every, keys, ids, built_at)
		values (${listId}, ${sort}, ${list.found}, ${rows}, ${MARK_EVERY},
			${JSON.stringify(marks.map((m) => m.key))}::jsonb, ${marks.map((m) => m.id)}::uuid[], now())
		on conflict (list_id, sort) do update
		set found = excluded.found, rows = excluded.rows, every = excluded.every,
			keys = excluded.keys, ids = excluded.ids, built_at = excluded.built_at`.execute(db)
}
