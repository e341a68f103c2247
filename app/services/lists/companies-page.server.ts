import { sql, type RawBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import {
	COMPANIES_PAGE_SIZE,
	parseCompaniesQuery,
	type CompaniesQuery,
	type CompanySort,
} from './companies-query.ts'
import { findCompanyList } from './find-list.server.ts'

export type CompanyRow = {
	id: string
	name: string | null
	domain: string | null
	industry: string | null
	employees: number | null
	location: string | null
	linkedin_url: string | null
	description: string | null
	data: Record<string, unknown>
}

// Each sort key is the second column of an index (list_id, key, id) of migration
// 2026-11-24T0220, in the "C" collation so that a prefix search uses the same indexes.
export const COMPANY_SORT_KEY: Record<CompanySort, RawBuilder<string>> = {
	name: sql`(coalesce(lower(name), '') collate "C")`,
	domain: sql`(coalesce(lower(domain), '') collate "C")`,
}

type Cursor = { key: string; id: string }

function encodeCursor(cursor: Cursor) {
	return Buffer.from(JSON.stringify([cursor.key, cursor.id])).toString('base64url')
}

function decodeCursor(value: string | undefined): Cursor | null {
	if (!value) return null
	try {
		const [key, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[]
		if (!isUuid(id) || typeof key !== 'string') return null
		return { key, id }
	} catch {
		return null
	}
}

function likePrefix(value: string) {
	return `${value.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`
}

/** `q` matches the start of the company's name or of its domain (case-insensitive). */
export function searchCondition(q: string) {
	const prefix = likePrefix(q.replace(/^(https?:\/\/)?(www\.)?/i, ''))
	return sql<boolean>`(${COMPANY_SORT_KEY.name} like ${prefix} or ${COMPANY_SORT_KEY.domain} like ${prefix})`
}

/** The select of one page (a list id already checked): exported so a test can EXPLAIN it. */
export function companiesPageQuery(listId: string, query: CompaniesQuery) {
	const after = decodeCursor(query.after)
	const before = after ? null : decodeCursor(query.before)
	const keyOf = COMPANY_SORT_KEY[query.sort]
	const descending = query.dir === 'desc'
	// Reading backwards (the previous page) flips the order, then the rows are turned round.
	const reverse = before !== null
	const direction = descending === reverse ? sql`asc` : sql`desc`

	let builder = db
		.selectFrom('companies')
		.select([
			'id',
			'name',
			'domain',
			'industry',
			'employees',
			'location',
			'linkedin_url',
			'description',
			'data',
		])
		.select(keyOf.as('sort_key'))
		.where('list_id', '=', listId)
	if (query.q) builder = builder.where(searchCondition(query.q))
	const cursor = after ?? before
	if (cursor) {
		const greater = (after !== null) !== descending
		builder = builder.where(
			greater
				? sql<boolean>`(${keyOf}, id) > (${cursor.key}, ${cursor.id}::uuid)`
				: sql<boolean>`(${keyOf}, id) < (${cursor.key}, ${cursor.id}::uuid)`,
		)
	}
	return {
		builder: builder
			.orderBy(sql`${keyOf} ${direction}`)
			.orderBy(sql`id ${direction}`)
			.limit(COMPANIES_PAGE_SIZE + 1)
			.offset(cursor ? 0 : (query.page - 1) * COMPANIES_PAGE_SIZE),
		reverse,
		after,
	}
}

/**
 * One page of a company list, sorted, searched and paged by keyset in PostgreSQL (the
 * `after`/`before` cursors of the previous page's links) on an index that starts with the
 * list id, so the last page of a big list costs what the first does; a page number without a
 * cursor falls back to an offset. Another account's list, or one in a workspace the user may
 * not use, is a 404.
 */
export async function listCompaniesPage(
	context: AccountContext | null,
	listId: unknown,
	search: URLSearchParams,
) {
	const { list } = await findCompanyList(context, listId)
	const query = parseCompaniesQuery(search)
	const { builder, reverse, after } = companiesPageQuery(list.id, query)
	const fetched = await builder.execute()
	const more = fetched.length > COMPANIES_PAGE_SIZE
	const rows = fetched.slice(0, COMPANIES_PAGE_SIZE)
	if (reverse) rows.reverse()
	const first = rows[0]
	const last = rows.at(-1)
	const hasPrevious = reverse ? more : query.page > 1 || after !== null
	const hasNext = reverse ? true : more
	return {
		list,
		query,
		companies: rows.map(({ sort_key: _, ...company }) => company as CompanyRow),
		dataKeys: [
			...new Set(rows.flatMap((r) => Object.keys((r.data as Record<string, unknown>) ?? {}))),
		].slice(0, 20),
		/** the whole list's size (kept on the list row: no count over the list) */
		total: query.q ? null : list.found,
		firstIndex: (query.page - 1) * COMPANIES_PAGE_SIZE + 1,
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
