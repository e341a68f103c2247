import { sql, type RawBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { findCompanyList } from './find-list.server.ts'
import { decodeCursor, keysetPage, likePrefix } from './keyset-page.server.ts'
import { LIST_KINDS, type CompanySort } from './list-kinds.ts'
import { parseListQuery, type ListQuery } from './list-query.ts'

export type CompaniesQuery = ListQuery<CompanySort>

const COMPANIES_PAGE_SIZE = LIST_KINDS.companies.pageSize

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

const companyKey = (key: unknown) => (typeof key === 'string' ? key : undefined)

/** `q` matches the start of the company's name or of its domain (case-insensitive). */
export function searchCondition(q: string) {
	const prefix = likePrefix(q.replace(/^(https?:\/\/)?(www\.)?/i, ''))
	return sql<boolean>`(${COMPANY_SORT_KEY.name} like ${prefix} or ${COMPANY_SORT_KEY.domain} like ${prefix})`
}

/** The select of one page (a list id already checked): exported so a test can EXPLAIN it. */
export function companiesPageQuery(listId: string, query: CompaniesQuery) {
	const after = decodeCursor(query.after, companyKey)
	const before = after ? null : decodeCursor(query.before, companyKey)
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
	const query = parseListQuery('companies', search)
	const { builder, reverse, after } = companiesPageQuery(list.id, query)
	const fetched = await builder.execute()
	const page = keysetPage(fetched, query, COMPANIES_PAGE_SIZE, { reverse, after })
	return {
		list,
		query,
		companies: page.rows as CompanyRow[],
		dataKeys: page.dataKeys,
		/** the whole list's size (kept on the list row: no count over the list) */
		total: query.q ? null : list.found,
		firstIndex: page.firstIndex,
		previous: page.previous,
		next: page.next,
	}
}
