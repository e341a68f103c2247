import { sql, type RawBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import { findLeadList, type LeadList } from './find-list.server.ts'
import { LEADS_PAGE_SIZE, parseLeadsQuery, type LeadsQuery, type LeadSort } from './leads-query.ts'

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

// Each sort key matches an index (list_id, key, id) of migration 2026-11-21T0940, in the
// "C" collation so that prefix search (like 'abc%') can use the same indexes.
const SORT_KEY: Record<Exclude<LeadSort, 'added'>, RawBuilder<string>> = {
	email: sql`(lower(email) collate "C")`,
	first_name: sql`(coalesce(lower(first_name), '') collate "C")`,
	last_name: sql`(coalesce(lower(last_name), '') collate "C")`,
	company: sql`(coalesce(lower(company_name), '') collate "C")`,
}

/**
 * The list's leads, as `list_id = any(array[id])` rather than `list_id = id`: with an
 * equality PostgreSQL drops list_id from the ORDER BY (it is a constant) and may walk
 * leads_pkey in id order, filtering out every other list's leads (ids are uuidv7, so an older
 * list's or a newer list's leads lie across the way): 11 s for the first page of a
 * 1,000,000-row list after 5,000,000 older leads. Ordered by (list_id, key, id) (listOrder),
 * only the list's own indexes (list_id, key, id) give that order. Decision 0034.
 */
export function ofList(listId: string, table = 'leads') {
	return sql<boolean>`${sql.ref(`${table}.list_id`)} = any(${[listId]}::uuid[])`
}

type Cursor = { key: string | null; id: string }

export function encodeCursor(cursor: Cursor) {
	return Buffer.from(JSON.stringify([cursor.key, cursor.id])).toString('base64url')
}

function decodeCursor(value: string | undefined): Cursor | null {
	if (!value) return null
	try {
		const [key, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[]
		if (!isUuid(id) || (key !== null && typeof key !== 'string')) return null
		return { key: key, id }
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
	const keyOf = query.sort === 'added' ? null : SORT_KEY[query.sort]
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
			after = await rowBeforePage(list, keyOf, descending, query.page)
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
	const keyOf = query.sort === 'added' ? null : SORT_KEY[query.sort]
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
		.select(keyOf ? keyOf.as('sort_key') : sql<null>`null`.as('sort_key'))
		.where(ofList(listId))
	if (query.q) builder = builder.where(searchCondition(query.q))
	const cursor = after ?? before
	if (cursor) {
		const greater = (after !== null) !== descending
		builder = builder.where(
			keyOf
				? greater
					? sql<boolean>`(${keyOf}, id) > (${cursor.key ?? ''}, ${cursor.id}::uuid)`
					: sql<boolean>`(${keyOf}, id) < (${cursor.key ?? ''}, ${cursor.id}::uuid)`
				: greater
					? sql<boolean>`id > ${cursor.id}::uuid`
					: sql<boolean>`id < ${cursor.id}::uuid`,
		)
	}
	const direction = ascending ? sql`asc` : sql`desc`
	builder = builder.orderBy(sql`list_id ${direction}`)
	if (keyOf) builder = builder.orderBy(sql`${keyOf} ${direction}`)
	return builder
		.orderBy(sql`id ${direction}`)
		.limit(LEADS_PAGE_SIZE + 1)
		.offset(offset)
}

/**
 * The row just before page `page` of the whole list in this order (null past the end), read
 * from the nearer end of the list's index: for the order of addition an index-only scan of
 * (list_id, id); for the sorted orders the index (list_id, key, id) with its rows. From the
 * far end only when the list is not being written to, as its count is then exact.
 */
async function rowBeforePage(
	list: { id: string; found: number; status: number },
	keyOf: RawBuilder<string> | null,
	descending: boolean,
	page: number,
): Promise<Cursor | null> {
	const position = (page - 1) * LEADS_PAGE_SIZE - 1
	const fromEnd = list.found - 1 - position
	if (list.status >= 2 && fromEnd < 0) return null
	const backwards = list.status >= 2 && fromEnd < position
	const direction = descending === backwards ? sql`asc` : sql`desc`
	const row = await db
		.selectFrom('leads')
		.select(keyOf ? keyOf.as('key') : sql<null>`null`.as('key'))
		.select('id')
		.where(ofList(list.id))
		.orderBy(sql`list_id ${direction}`)
		.$if(keyOf !== null, (q) => q.orderBy(sql`${keyOf} ${direction}`))
		.orderBy(sql`id ${direction}`)
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
