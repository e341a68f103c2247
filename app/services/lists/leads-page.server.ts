import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { findLeadList, type LeadList } from './find-list.server.ts'
import { decodeCursor, keysetPage, likePrefix } from './keyset-page.server.ts'
import {
	comparedTo,
	keysComparedTo,
	keysOrder,
	listOrder,
	orderKeys,
	ofList,
	sortKeyOf,
	SORT_KEY,
	type Cursor,
} from './lead-order.server.ts'
import { LIST_KINDS, type LeadSort } from './list-kinds.ts'
import { parseListQuery, type ListQuery } from './list-query.ts'
import type { StatusFilter } from '../verification/statuses.ts'
import { MARK_EVERY, requestPageMarks, rowFromMarks } from './page-marks.server.ts'
import { suppressedInList, withSuppression } from '../do-not-contact/match.server.ts'

export { encodeCursor } from './keyset-page.server.ts'

export type LeadsQuery = ListQuery<LeadSort>

const LEADS_PAGE_SIZE = LIST_KINDS.leads.pageSize

export type LeadRow = {
	id: string
	email: string
	first_name: string | null
	last_name: string | null
	title: string | null
	company_name: string | null
	company_domain: string | null
	linkedin_url: string | null
	location: string | null
	phone: string | null
	email_status: string | null
	/** our own check (decision 0086); null: never verified */
	verify_status: string | null
	verify_role: boolean | null
	data: Record<string, unknown>
	/** the do-not-contact entry that suppresses the lead, e.g. "acme.com (competitor)" */
	suppressed_by?: string | null
}

/** A cursor's key: null in added order, else the order's keys (one string: a link made
 * before orders had several). */
function leadKey(key: unknown): string[] | null | undefined {
	if (key === null) return null
	const keys = typeof key === 'string' ? [key] : key
	return Array.isArray(keys) && keys.every((k) => typeof k === 'string') ? keys : undefined
}

/**
 * One page of a list's leads, sorted and filtered in PostgreSQL and paged by keyset (the
 * `after`/`before` cursors of the previous page's links), so every page costs the same at
 * 1,000,000 rows; a page number without a cursor falls back to an indexed offset.
 * `q` matches the start of the email, first name, last name or company (case-insensitive);
 * "ada love" also matches first name "Ada…" with last name "Love…".
 */
export async function listLeadsPage(
	context: AccountContext | null,
	listId: unknown,
	search: URLSearchParams,
) {
	const { list } = await findLeadList(context, listId)
	return leadsPageOf(list, search)
}

/** listLeadsPage for a list already found (findLeadList) for the signed-in account. */
export async function leadsPageOf(list: LeadList, search: URLSearchParams) {
	const query = parseListQuery('leads', search)
	const descending = query.dir === 'desc'
	let after = decodeCursor(query.after, leadKey)
	const before = after ? null : decodeCursor(query.before, leadKey)
	let offset = 0
	let pastTheEnd = false
	if (!after && !before && query.page > 1) {
		// a typed ?page= without a cursor: a search counts its way there; a whole list finds
		// the row before the page on the index alone, then reads on by keyset
		if (query.q || query.status || query.suppressed) offset = (query.page - 1) * LEADS_PAGE_SIZE
		else {
			after = await rowBeforePage(list, query.sort, descending, query.page)
			pastTheEnd = after === null
		}
	}
	const reverse = before !== null
	// a search counts its matches (for "Enrich these N leads") and, when there are few, sorts
	// its page from them in the same statement
	const searched = query.q ? await searchPage(list.id, query, { after, before }, offset) : null
	const fetched = pastTheEnd
		? []
		: (searched?.rows ??
			(await leadsPageQuery(list.id, query, { after, before }, offset).execute()))
	const page = keysetPage<(typeof fetched)[number]>(fetched, query, LEADS_PAGE_SIZE, {
		reverse,
		after,
	})
	return {
		list,
		query,
		leads: await withSuppression(list.id, page.rows as LeadRow[]),
		dataKeys: page.dataKeys,
		/** the whole list's size (kept on the list row, so no count over 1,000,000 rows) */
		total: query.q || query.status || query.suppressed ? null : list.found,
		/** how many leads the search matches, counted up to SEARCH_COUNT_CAP */
		matching: searched?.matching ?? null,
		firstIndex: page.firstIndex,
		previous: page.previous,
		next: page.next,
	}
}

/** The SQL of one page (without the list's access check): pageSize + 1 rows. */
export function leadsPageQuery(
	listId: string,
	query: Pick<LeadsQuery, 'q' | 'sort' | 'dir' | 'status' | 'suppressed'>,
	cursors: { after: Cursor | null; before: Cursor | null },
	offset = 0,
	pageSize = LEADS_PAGE_SIZE,
) {
	const descending = query.dir === 'desc'
	const { after, before } = cursors
	// Reading backwards (the previous page) flips the order, then the rows are turned round.
	const ascending = descending === (before !== null)
	let builder = db
		.selectFrom('leads')
		.select(LEAD_COLUMNS)
		.select(sortKeyOf(query.sort).as('sort_key'))
		.where(ofList(listId))
	if (query.q) builder = builder.where(searchCondition(query.q))
	if (query.status) builder = builder.where(statusCondition(query.status))
	if (query.suppressed) builder = builder.where(suppressedInList(listId))
	const cursor = after ?? before
	if (cursor) {
		const greater = (after !== null) !== descending
		builder = builder.where(comparedTo(query.sort, cursor, greater ? '>' : '<'))
	}
	return builder
		.orderBy(listOrder(query.sort, ascending))
		.limit(pageSize + 1)
		.offset(offset)
}

/** A search's matches are counted up to this many, and its page sorted from them below it. */
export const SEARCH_COUNT_CAP = 10_000

const LEAD_COLUMNS = [
	'id',
	'email',
	'first_name',
	'last_name',
	'title',
	'company_name',
	'company_domain',
	'linkedin_url',
	'location',
	'phone',
	'email_status',
	'verify_status',
	'verify_role',
	'data',
] as const

/**
 * A search's page and its count in one statement. The matching leads (up to
 * SEARCH_COUNT_CAP + 1) are found once with their sort keys, by whichever indexes the planner
 * picks, and counted; when that is all of them, the page is sorted from them, and only its
 * rows are read whole. A few matches in a big list are then never looked for by walking the
 * list in order (a first and last name search: 71 ms that way on 1,000,000 leads, 31 ms this
 * way). A broad search (more than the cap) leaves `rows` null: its page is read by walking the
 * list's index, where matches are dense.
 */
async function searchPage(
	listId: string,
	query: LeadsQuery,
	cursors: { after: Cursor | null; before: Cursor | null },
	offset: number,
) {
	const keys = orderKeys(query.sort)
	const hitKeys = keys.map((_, i) => sql.ref(`hit.k${i}`))
	const pickedKeys = keys.map((_, i) => sql.ref(`picked.k${i}`))
	const { after, before } = cursors
	const ascending = (query.dir === 'desc') === (before !== null)
	const cursor = after ?? before
	const greater = (after !== null) !== (query.dir === 'desc')
	const { rows } = await sql<LeadRow & { matched: number; sort_key: string[] | null }>`
		with hit as materialized (
			select id${sql.join(
				keys.map((key, i) => sql`, ${key} as ${sql.ref(`k${i}`)}`),
				sql``,
			)}
			from leads where ${ofList(listId)} and ${searchCondition(query.q)}
				and ${query.status ? statusCondition(query.status) : sql`true`}
				and ${query.suppressed ? suppressedInList(listId) : sql`true`}
			limit ${SEARCH_COUNT_CAP + 1}
		), counted as (
			select count(*)::int as matched from hit
		), picked as (
			select * from hit
			-- a broad search's page is read by the walk: nothing to sort here
			where (select matched from counted) <= ${SEARCH_COUNT_CAP}
				and ${cursor ? keysComparedTo(hitKeys, sql.ref('hit.id'), cursor, greater ? '>' : '<') : sql`true`}
			order by ${keysOrder([...hitKeys, sql.ref('hit.id')], ascending)}
			limit ${LEADS_PAGE_SIZE + 1} offset ${offset}
		)
		select (select matched from counted) as matched,
			${sql.join(LEAD_COLUMNS.map((column) => sql.ref(`lead.${column}`)))},
			${keys.length ? sql`array[${sql.join(pickedKeys)}]` : sql`null::text[]`} as sort_key
		from (select) one
		left join (picked join leads lead on lead.id = picked.id) on true
		order by ${keysOrder([...pickedKeys, sql.ref('picked.id')], ascending)}`.execute(db)
	const matched = rows[0]?.matched ?? 0
	return {
		matching: { count: Math.min(matched, SEARCH_COUNT_CAP), more: matched > SEARCH_COUNT_CAP },
		rows:
			matched > SEARCH_COUNT_CAP
				? null
				: rows.filter((row) => row.id !== null).map(({ matched: _, ...row }) => row),
	}
}

/**
 * The row just before page `page` of the whole list in this order (null past the end). Far
 * from both ends of a finished list: from the nearest of its marks (page-marks.server.ts),
 * asked for when missing. Otherwise from the nearer end of the list's index: for the order of
 * addition an index-only scan of (list_id, id); for the sorted orders the index
 * (list_id, key, id) with its rows. From the far end only when the list is not being written
 * to, as its count is then exact.
 */
async function rowBeforePage(
	list: { id: string; found: number; status: number },
	sort: LeadSort,
	descending: boolean,
	page: number,
): Promise<Cursor | null> {
	const position = (page - 1) * LEADS_PAGE_SIZE - 1
	const fromEnd = list.found - 1 - position
	const finished = list.status >= 2
	if (finished && fromEnd < 0) return null
	// no marks by email status: a verification reorders the list without changing its size
	if (finished && sort !== 'verify' && Math.min(position, fromEnd) > MARK_EVERY) {
		const marked = await rowFromMarks(list, sort, descending, position)
		if (marked !== undefined) return marked
		await requestPageMarks(list, sort)
	}
	const backwards = finished && fromEnd < position
	const row = await db
		.selectFrom('leads')
		.select(sortKeyOf(sort).as('key'))
		.select('id')
		.where(ofList(list.id))
		.orderBy(listOrder(sort, descending === backwards))
		.offset(backwards ? fromEnd : position)
		.limit(1)
		.executeTakeFirst()
	return row ? { key: row.key, id: row.id } : null
}

/** The list page's email status filter: one of our statuses, or never verified. */
export function statusCondition(status: StatusFilter) {
	return status === 'unverified'
		? sql<boolean>`verify_status is null`
		: sql<boolean>`verify_status = ${status}`
}

/** The list page's search as a condition on `leads` (also what a run on a search takes). */
export function searchCondition(q: string) {
	const prefix = likePrefix(q)
	const words = q.split(/\s+/).filter(Boolean)
	const parts = [
		sql<boolean>`${SORT_KEY.email} like ${prefix}`,
		sql<boolean>`${SORT_KEY.first_name} like ${prefix}`,
		sql<boolean>`${SORT_KEY.last_name} like ${prefix}`,
		sql<boolean>`${SORT_KEY.company} like ${prefix}`,
	]
	if (words.length === 2) {
		parts.push(
			sql<boolean>`(${SORT_KEY.first_name} like ${likePrefix(words[0]!)} and ${SORT_KEY.last_name} like ${likePrefix(words[1]!)})`,
		)
	}
	return sql<boolean>`(${sql.join(parts, sql` or `)})`
}
