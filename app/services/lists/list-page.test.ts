import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { buildAccounts, contextOf, outcomeOf } from '../../../tests/support/team.ts'
import { loadAccountContext } from '../../context.server.ts'
import { addEntry } from '../do-not-contact/entries.server.ts'
import { importReport } from '../imports/import-report.server.ts'
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

	test("a scrape's result and a CSV import's report say how many leads the do-not-contact list matches", async () => {
		const me = await loadAccountContext(db, await insertUser(db))
		const other = await loadAccountContext(db, await insertUser(db))
		const list = async (sourceType: string) => {
			const { id } = await db
				.insertInto('processing_list')
				.values({ user_id: me.accountId!, name: 'L', source_type: sourceType, status: 2 })
				.returning('id')
				.executeTakeFirstOrThrow()
			await db
				.insertInto('leads')
				.values(
					['jane@client.com', 'bob@eu.rival.io', 'ann@fine.com'].map((email, i) => ({
						list_id: id,
						user_id: me.accountId!,
						email,
						first_name: `F${i}`,
					})),
				)
				.execute()
			return id
		}
		const scraped = await list('apollo')
		const uploaded = await list('upload')
		await sql`insert into csv_imports (list_id, user_id, file_path, bytes_total, rows_total, has_header, mapping)
			values (${uploaded}, ${me.accountId}, '/dev/null', 1, 3, true, '{}')`.execute(db)
		await addEntry(me, { value: 'jane@client.com', reason: 'unsubscribed', scope: 'account' })
		await addEntry(me, { value: 'rival.io', reason: 'competitor', scope: 'account' })
		// another account's entry never counts here
		await addEntry(other, { value: 'fine.com', reason: 'manual', scope: 'account' })

		const page = await loadListPage('leads', me, scraped, get(`/lists/${scraped}`))
		expect(page.suppressed).toBe(2)
		const report = await importReport(me, uploaded, 0)
		expect(report.summary.suppressed).toBe(2)
		const uploadedPage = await loadListPage('leads', me, uploaded, get(`/lists/${uploaded}`))
		expect(uploadedPage.suppressed).toBe(2)
	})
})
