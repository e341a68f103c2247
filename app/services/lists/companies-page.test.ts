import { describe, expect, test } from 'vitest'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { buildAccounts, contextOf, outcomeOf } from '../../../tests/support/team.ts'
import type { AccountContext } from '../../context.server.ts'
import { companiesPageQuery, listCompaniesPage } from './companies-page.server.ts'
import { listSearch, parseListQuery } from './list-query.ts'

async function companyList(account: AccountContext, count: number) {
	const id = account.accountId!
	const list = await db
		.insertInto('company_scraping_list')
		.values({ user_id: id, name: 'Targets', source_type: 'domains', status: 2, found: count })
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('companies')
		.values(
			Array.from({ length: count }, (_, i) => ({
				list_id: list.id,
				user_id: id,
				// names out of domain order, one without a name
				name: i === 7 ? null : `Company ${String(count - i).padStart(3, '0')}`,
				domain: `d${String(i).padStart(3, '0')}.example`,
				employees: i,
				data: JSON.stringify(i === 0 ? { score: 9 } : {}),
			})),
		)
		.execute()
	return list.id
}

/** Every page from the first, following the Next links (their cursors). */
async function walk(account: AccountContext, listId: string, query: Record<string, string> = {}) {
	const seen: string[][] = []
	let search = new URLSearchParams(query)
	for (;;) {
		const page = await listCompaniesPage(account, listId, search)
		seen.push(page.companies.map((c) => c.domain!))
		if (!page.next) return { pages: seen, last: page }
		const { q, sort, dir } = page.query
		search = new URLSearchParams(listSearch('companies', { q, sort, dir, ...page.next }))
	}
}

describe('company list page', () => {
	test('pages by keyset through every company once, by name or domain, both ways', async () => {
		const me = await accountWithCredits()
		const listId = await companyList(me, 120)
		const byName = await walk(me, listId)
		expect(byName.pages.map((p) => p.length)).toEqual([50, 50, 20])
		const all = byName.pages.flat()
		expect(new Set(all).size).toBe(120)
		// no name sorts first; then by name: "Company 001" is the last domain
		expect(all[0]).toBe('d007.example')
		expect(all[1]).toBe('d119.example')
		const byDomainDesc = await walk(me, listId, { sort: 'domain', dir: 'desc' })
		expect(byDomainDesc.pages.flat()).toEqual(
			Array.from({ length: 120 }, (_, i) => `d${String(119 - i).padStart(3, '0')}.example`),
		)
		// Previous from page 3 gives page 2 again
		const previous = byName.last.previous!
		const back = await listCompaniesPage(
			me,
			listId,
			new URLSearchParams(listSearch('companies', { sort: 'name', ...previous })),
		)
		expect(back.companies.map((c) => c.domain)).toEqual(byName.pages[1])
		expect(back.firstIndex).toBe(51)
		const first = await listCompaniesPage(me, listId, new URLSearchParams({ sort: 'domain' }))
		expect(first.total).toBe(120)
		expect(first.dataKeys).toContain('score')
	})

	test('search matches the start of the name or of the domain', async () => {
		const me = await accountWithCredits()
		const listId = await companyList(me, 60)
		const byDomain = await listCompaniesPage(me, listId, new URLSearchParams({ q: 'D05' }))
		expect(byDomain.companies.map((c) => c.domain)).toEqual(
			Array.from({ length: 10 }, (_, i) => `d05${i}.example`).sort((a, b) =>
				// sorted by name: higher index, lower name
				b.localeCompare(a),
			),
		)
		expect(byDomain.total).toBeNull()
		const withScheme = await listCompaniesPage(
			me,
			listId,
			new URLSearchParams({ q: 'https://www.d001' }),
		)
		expect(withScheme.companies.map((c) => c.domain)).toEqual(['d001.example'])
		const byName = await listCompaniesPage(me, listId, new URLSearchParams({ q: 'company 06' }))
		expect(byName.companies.map((c) => c.name)).toEqual(['Company 060'])
		const none = await listCompaniesPage(me, listId, new URLSearchParams({ q: '%' }))
		expect(none.companies).toEqual([])
	})

	test('a later page and a search read the list through its own sort indexes, without sorting', async () => {
		const me = await accountWithCredits()
		const listId = await companyList(me, 2000)
		// other lists, so the planner has a reason to prefer an index that starts with the list
		await companyList(me, 2000)
		await sql`analyze companies`.execute(db)
		const second = await listCompaniesPage(me, listId, new URLSearchParams())
		const plans: string[] = []
		for (const search of [
			listSearch('companies', { ...second.next! }),
			listSearch('companies', { sort: 'domain', dir: 'desc', ...second.next! }).replace(
				/after=[^&]+/,
				'',
			),
			listSearch('companies', { q: 'd01' }),
		]) {
			const { sql: text, parameters } = companiesPageQuery(
				listId,
				parseListQuery('companies', new URLSearchParams(search)),
			).builder.compile()
			const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>({
				sql: `explain ${text}`,
				parameters,
				query: { kind: 'RawNode' } as never,
				queryId: { queryId: 'explain' },
			})
			plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'))
		}
		expect(plans[0]).toContain('companies_list_name_sort_idx')
		expect(plans[1]).toContain('companies_list_domain_sort_idx')
		for (const plan of plans.slice(0, 2)) expect(plan).not.toMatch(/\bSort\b/)
		expect(plans[2]).toMatch(/companies_list_(name|domain)_sort_idx/)
	})

	test("another account's list, and a list in a workspace the member may not use, are 404", async () => {
		const { users, inX, inZ } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const noX = await contextOf(db, users.noX)
		const admin = await contextOf(db, users.admin)
		const page = () => new URLSearchParams()
		expect(await outcomeOf(() => listCompaniesPage(owner, inX.companyList, page()))).toBe('ok')
		expect(await outcomeOf(() => listCompaniesPage(admin, inX.companyList, page()))).toBe('ok')
		expect(await outcomeOf(() => listCompaniesPage(owner, inZ.companyList, page()))).toBe(404)
		expect(await outcomeOf(() => listCompaniesPage(noX, inX.companyList, page()))).toBe(404)
		// a lead list's id is not a company list
		expect(await outcomeOf(() => listCompaniesPage(owner, inX.list, page()))).toBe(404)
		expect(await outcomeOf(() => listCompaniesPage(owner, 'not-a-uuid', page()))).toBe(404)
	})
})
