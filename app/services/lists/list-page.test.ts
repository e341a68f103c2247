import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { buildAccounts, contextOf, outcomeOf } from '../../../tests/support/team.ts'
import { LIST_KINDS } from './list-kinds.ts'
import { loadListPage } from './list-page.server.ts'
import { listSearch, parseListQuery } from './list-query.ts'

// The one loader of both list pages (decision 0072): each kind reads its own table, and the
// other kind's id, another account's list or a workspace the member may not use is a 404.

const get = (path: string) => new Request(`http://localhost${path}`)

describe('the list page of either kind', () => {
	test('reads its own kind, scoped to the account and its workspaces', async () => {
		const { users, inX, inZ } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const noX = await contextOf(db, users.noX)
		const leads = await loadListPage('leads', owner, inX.list, get(`/lists/${inX.list}`))
		expect(leads.kind).toBe('leads')
		expect(leads.list.id).toBe(inX.list)
		expect(leads.matching).toBeNull()
		const companies = await loadListPage(
			'companies',
			owner,
			inX.companyList,
			get(`/company-lists/${inX.companyList}?q=acme`),
		)
		expect(companies).toMatchObject({ kind: 'companies', summary: null, matching: null })
		expect(companies.query.q).toBe('acme')
		expect(companies.list.fileName).toBeNull()
		for (const [kind, own, other] of [
			['leads', inX.list, inX.companyList],
			['companies', inX.companyList, inX.list],
		] as const) {
			const load = (context: typeof owner, id: string) => () =>
				loadListPage(kind, context, id, get('/'))
			expect(await outcomeOf(load(owner, own))).toBe('ok')
			// the other kind's list, another account's, a workspace the member may not use
			expect(await outcomeOf(load(owner, other))).toBe(404)
			expect(await outcomeOf(load(noX, own))).toBe(404)
			expect(await outcomeOf(load(owner, kind === 'leads' ? inZ.list : inZ.companyList))).toBe(404)
		}
	})

	test("a page's URL names only what differs from its kind's defaults", () => {
		expect(listSearch('leads', { sort: 'added', dir: 'asc', page: 1 })).toBe('')
		expect(listSearch('companies', { sort: 'name', q: 'a b' })).toBe('?q=a+b')
		expect(listSearch('companies', { sort: 'added' })).toBe('?sort=added')
		// a sort of the other kind falls back to the kind's default
		expect(parseListQuery('companies', new URLSearchParams('sort=email')).sort).toBe('name')
		expect(parseListQuery('leads', new URLSearchParams('sort=domain')).sort).toBe('added')
		for (const words of Object.values(LIST_KINDS))
			for (const column of words.columns)
				if (column.sort) expect(words.sorts.map((s) => s.key)).toContain(column.sort)
	})
})
