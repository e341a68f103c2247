import { sql, type Expression, type RawBuilder } from 'kysely'
import type { LeadSort } from './list-kinds.ts'

// Lowercased in the "C" collation, so that prefix search (like 'abc%') can use the same
// indexes as the sorts.
const email = sql<string>`(lower(email) collate "C")`
const firstName = sql<string>`(coalesce(lower(first_name), '') collate "C")`
const lastName = sql<string>`(coalesce(lower(last_name), '') collate "C")`
const company = sql<string>`(coalesce(lower(company_name), '') collate "C")`

// Email status, best first and never verified last, as its index holds it (migration
// 2026-11-28T0150)
export const VERIFY_RANK = sql<string>`((case verify_status when 'valid' then '1' when 'catch_all' then '2'
	when 'risky' then '3' when 'unknown' then '4' when 'disposable' then '5' when 'invalid' then '6'
	else '7' end) collate "C")`

/** Each searchable column as the indexes hold it. */
export const SORT_KEY = { email, first_name: firstName, last_name: lastName, company }

/**
 * The keys of each order, most significant first, then id: each matches an index
 * (list_id, ...keys, id) (migrations 2026-11-21T0940 and 2026-11-24T1810). By last name, ties
 * go by first name, as a reader expects, and the same index answers "first and last name"
 * searches without reading the rows (decision 0045).
 */
const ORDER_KEYS: Record<LeadSort, RawBuilder<string>[]> = {
	added: [],
	email: [email],
	first_name: [firstName],
	last_name: [lastName, firstName],
	company: [company],
	verify: [VERIFY_RANK],
}

export function orderKeys(sort: LeadSort) {
	return ORDER_KEYS[sort]
}

/** A lead's place in a sorted list: its order's key values (null in added order) and id. */
export type Cursor = { key: string[] | null; id: string }

/** The order's key values of each row, to make cursors of (null in added order). */
export function sortKeyOf(sort: LeadSort) {
	const keys = ORDER_KEYS[sort]
	return keys.length ? sql<string[] | null>`array[${sql.join(keys)}]` : sql<null>`null::text[]`
}

/** The rows after (`>`), before (`<`) or from (`>=`) a cursor in the order of (keys..., id). */
export function comparedTo(sort: LeadSort, cursor: Cursor, op: '>' | '<' | '>=') {
	return keysComparedTo(ORDER_KEYS[sort], sql.ref('id'), cursor, op)
}

/** comparedTo for any expressions of an order's keys (a search's matches keep their own). */
export function keysComparedTo(
	keys: Expression<unknown>[],
	id: Expression<unknown>,
	cursor: Cursor,
	op: '>' | '<' | '>=',
) {
	const operator = sql.raw(op)
	if (!keys.length) return sql<boolean>`${id} ${operator} ${cursor.id}::uuid`
	const values = keys.map((_, i) => cursor.key?.[i] ?? '')
	return sql<boolean>`(${sql.join(keys)}, ${id}) ${operator} (${sql.join(values)}, ${cursor.id}::uuid)`
}

/** ORDER BY list_id, the order's keys and id, all one way (an index's order, either way). */
export function listOrder(sort: LeadSort, ascending: boolean) {
	return keysOrder([sql.ref('list_id'), ...ORDER_KEYS[sort], sql.ref('id')], ascending)
}

/** ORDER BY these expressions, all one way. */
export function keysOrder(keys: Expression<unknown>[], ascending: boolean) {
	const direction = ascending ? sql`asc` : sql`desc`
	return sql`${sql.join(keys.map((key) => sql`${key} ${direction}`))}`
}

/**
 * The list's leads, as `list_id = any(array[id])` rather than `list_id = id`: with an
 * equality PostgreSQL drops list_id from the ORDER BY (it is a constant) and may walk
 * leads_pkey in id order, filtering out every other list's leads (ids are uuidv7, so an older
 * list's or a newer list's leads lie across the way): 11 s for the first page of a
 * 1,000,000-row list after 5,000,000 older leads. Ordered by (list_id, ...keys, id)
 * (listOrder), only the list's own indexes give that order. Decision 0034.
 */
export function ofList(listId: string, table = 'leads') {
	return sql<boolean>`${sql.ref(`${table}.list_id`)} = any(${[listId]}::uuid[])`
}
