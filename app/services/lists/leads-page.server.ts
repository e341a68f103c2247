import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import { findLeadList, type LeadList } from './find-list.server.ts'
import {
	comparedTo,
	listOrder,
	ofList,
	sortKeyOf,
	SORT_KEY,
	type Cursor,
} from './lead-order.server.ts'
import { LEADS_PAGE_SIZE, parseLeadsQuery, type LeadsQuery, type LeadSort } from './leads-query.ts'
import { MARK_EVERY, requestPageMarks, rowFromMarks } from './page-marks.server.ts'

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
	data: Record<string, unknown>
}

export function encodeCursor(cursor: Cursor) {
	return Buffer.from(JSON.stringify([cursor.key, cursor.id])).toString('base64url')
}

function decodeCursor(value: string | undefined): Cursor | null {
	if (!value) return null
	try {
		const [key, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[]
		if (!isUuid(id)) return null
		if (key === null) return { key: null, id }
		// a single key: a link made before orders had several
		const keys = typeof key === 'string' ? [key] : key
		if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return null
		return { key: keys as string[], id }
	} catch {
		return null
	}
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
	const query = parseLeadsQuery(search)
	const descending = query.dir === 'desc'
	let after = decodeCursor(query.after)
	const before = after ? null : decodeCursor(query.before)
	let offset = 0
	let pastTheEnd = false
	if (!after && !before && query.page > 1) {
		// a typed ?page= without a cursor: a search counts its way there; a whole list finds
		// the row before the page on the index alone, then reads on by keyset
		if (query.q) offset = (query.page - 1) * LEADS_PAGE_SIZE
		else {
			after = await rowBeforePage(list, query.sort, descending, query.page)
			pastTheEnd = after === null
		}
	}
	const reverse = before !== null
	const fetched = pastTheEnd
		? []
		: await leadsPageQuery(list.id, query, { after, before }, offset).execute()
	const more = fetched.length > LEADS_PAGE_SIZE
	const rows = fetched.slice(0, LEADS_PAGE_SIZE)
	if (reverse) rows.reverse()
	const first = rows[0]
	const last = rows.at(-1)
	const hasPrevious = reverse ? more : query.page > 1 || after !== null
	const hasNext = reverse ? true : more
	const dataKeys = [
		...new Set(rows.flatMap((r) => Object.keys((r.data as Record<string, unknown>) ?? {}))),
	].slice(0, 20)
	return {
		list,
		query,
		leads: rows.map(({ sort_key: _, ...lead }) => lead as LeadRow),
		dataKeys,
		/** the whole list's size (kept on the list row, so no count over 1,000,000 rows) */
		total: query.q ? null : list.found,
		firstIndex: (query.page - 1) * LEADS_PAGE_SIZE + 1,
		previous:
			hasPrevious && first
				? query.page <= 2
					? { page: 1 }
					: { page: query.page - 1, before: encodeCursor({ key: first.sort_key, id: first.id }) }
				: null,
		next:
			hasNext && last
				? { page: query.page + 1, after: encodeCursor({ key: last.sort_key, id: last.id }) }
				: null,
	}
}

/** The SQL of one page (without the list's access check): LEADS_PAGE_SIZE + 1 rows. */
export function leadsPageQuery(
	listId: string,
	query: Pick<LeadsQuery, 'q' | 'sort' | 'dir'>,
	cursors: { after: Cursor | null; before: Cursor | null },
	offset = 0,
) {
	const descending = query.dir === 'desc'
	const { after, before } = cursors
	// Reading backwards (the previous page) flips the order, then the rows are turned round.
	const ascending = descending === (before !== null)
	let builder = db
		.selectFrom('leads')
		.select([
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
			'data',
		])
		.select(sortKeyOf(query.sort).as('sort_key'))
		.where(ofList(listId))
	if (query.q) builder = builder.where(searchCondition(query.q))
	const cursor = after ?? before
	if (cursor) {
		const greater = (after !== null) !== descending
		builder = builder.where(comparedTo(query.sort, cursor, greater ? '>' : '<'))
	}
	return builder
		.orderBy(listOrder(query.sort, ascending))
		.limit(LEADS_PAGE_SIZE + 1)
		.offset(offset)
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
	if (finished && Math.min(position, fromEnd) > MARK_EVERY) {
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

function likePrefix(value: string) {
	return `${value.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`
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

/**
 * How many leads of the list match a search, counting at most `cap` of them (a broad search
 * on a list of 1,000,000 stays cheap): `{ count, more }` says whether there are more.
 */
export async function countSearchMatches(
	context: AccountContext | null,
	listId: unknown,
	q: string,
	cap = 10_000,
) {
	const { list } = await findLeadList(context, listId)
	return countSearchMatchesOf(list.id, q, cap)
}

/** countSearchMatches for a list already found (findLeadList) for the signed-in account. */
export async function countSearchMatchesOf(listId: string, q: string, cap = 10_000) {
	const { n } = await db
		.selectFrom((eb) =>
			eb
				.selectFrom('leads')
				.select('id')
				.where('list_id', '=', listId)
				.where(searchCondition(q))
				.limit(cap + 1)
				.as('hit'),
		)
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.executeTakeFirstOrThrow()
	return { count: Math.min(Number(n), cap), more: Number(n) > cap }
}

export type { LeadsQuery }
