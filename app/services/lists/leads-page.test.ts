import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { leadsPageQuery, listLeadsPage } from './leads-page.server.ts'

let owner: AccountContext
let ownerId: string

/** A list of `rows` leads made in one statement (uuidv7 ids in the order of n). */
async function insertList(userId: string, rows: number, status = 2) {
	const list = await db
		.insertInto('processing_list')
		.values({
			user_id: userId,
			name: `List of ${rows}`,
			source_type: 'upload',
			status,
			found: rows,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await sql`
		insert into leads (list_id, user_id, email, first_name, last_name, company_name)
		select ${list.id}, ${userId}, 'p' || lpad(n::text, 6, '0') || '@example.com', 'F' || (n % 7),
			'L' || (n % 13), 'Co ' || (n % 5)
		from generate_series(1, ${rows}::int) n
	`.execute(db)
	return list.id
}

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	ownerId = user.id
	owner = await loadAccountContext(db, user)
})

async function walk(listId: string, params: Record<string, string>) {
	const pages: string[][] = []
	let search = new URLSearchParams(params)
	for (;;) {
		const page = await listLeadsPage(owner, listId, search)
		pages.push(page.leads.map((l) => l.email))
		if (!page.next) return pages
		search = new URLSearchParams({
			...params,
			page: String(page.next.page),
			after: page.next.after,
		})
	}
}

describe('the list page of a big list among others', () => {
	test('a typed page number shows what the Next links reach, in every order, from either end', async () => {
		for (const status of [2, 1]) {
			// finished lists count from the nearer end, lists being written to from the start
			const listId = await insertList(ownerId, 230, status)
			for (const order of [
				{} as Record<string, string>,
				{ dir: 'desc' },
				{ sort: 'email', dir: 'desc' },
				{ sort: 'company' },
				{ sort: 'last_name', dir: 'desc' },
			]) {
				const pages = await walk(listId, order)
				expect(pages).toHaveLength(5)
				expect(pages.flat()).toHaveLength(230)
				for (const n of [2, 3, 4, 5]) {
					const typed = await listLeadsPage(
						owner,
						listId,
						new URLSearchParams({ ...order, page: String(n) }),
					)
					expect(typed.leads.map((l) => l.email)).toEqual(pages[n - 1])
					expect(typed.firstIndex).toBe((n - 1) * 50 + 1)
					expect(typed.previous).not.toBeNull()
					expect(typed.next === null).toBe(n === 5)
				}
				const past = await listLeadsPage(
					owner,
					listId,
					new URLSearchParams({ ...order, page: '6' }),
				)
				expect(past.leads).toEqual([])
			}
		}
	})

	test('by last name, ties go by first name; a first and last name search finds both', async () => {
		const listId = await insertList(ownerId, 200)
		// 'L' || n % 13 and 'F' || n % 7: many leads share a last name
		const shown = await walk(listId, { sort: 'last_name' })
		const leads = await db
			.selectFrom('leads')
			.select(['email', 'first_name', 'last_name'])
			.where('list_id', '=', listId)
			.execute()
		const byEmail = new Map(leads.map((l) => [l.email, l]))
		const names = shown.flat().map((email) => byEmail.get(email)!)
		expect(names).toHaveLength(200)
		const sorted = [...names].sort(
			(a, b) =>
				a.last_name!.toLowerCase().localeCompare(b.last_name!.toLowerCase(), 'en') ||
				a.first_name!.toLowerCase().localeCompare(b.first_name!.toLowerCase(), 'en'),
		)
		expect(names.map((n) => `${n.last_name} ${n.first_name}`)).toEqual(
			sorted.map((n) => `${n.last_name} ${n.first_name}`),
		)
		// "f3 l1": first name F3…, last name L1… (L1, L10, L11, L12)
		const found = await listLeadsPage(owner, listId, new URLSearchParams({ q: 'f3 l1' }))
		expect(found.leads.length).toBeGreaterThan(0)
		for (const lead of found.leads) {
			expect(lead.first_name).toBe('F3')
			expect(lead.last_name).toMatch(/^L1/)
		}
	})

	test('a search counts its matches and pages them in every order; a broad one is capped', async () => {
		const listId = await insertList(ownerId, 12_000)
		// first name F3 with a last name starting L1 (L1, L10, L11, L12)
		const { rows: all } = await sql<{ n: number }>`
			select count(*)::int as n from leads
			where list_id = ${listId} and first_name = 'F3' and last_name like 'L1%'`.execute(db)
		const matches = all[0]!.n
		expect(matches).toBeGreaterThan(150)
		const orders: { params: Record<string, string>; sql: string }[] = [
			{ params: {}, sql: 'id' },
			{ params: { dir: 'desc' }, sql: 'id desc' },
			{
				params: { sort: 'last_name' },
				sql: 'lower(last_name) collate "C", lower(first_name) collate "C", id',
			},
			{ params: { sort: 'email', dir: 'desc' }, sql: 'lower(email) collate "C" desc, id desc' },
		]
		for (const order of orders) {
			const pages = await walk(listId, { ...order.params, q: 'f3 l1' })
			const { rows: expected } = await sql<{ email: string }>`
				select email from leads where list_id = ${listId} and first_name = 'F3'
					and last_name like 'L1%'
				order by ${sql.raw(order.sql)}`.execute(db)
			expect(pages.flat()).toEqual(expected.map((r) => r.email))
			// a typed page and the Previous link from it
			const third = await listLeadsPage(
				owner,
				listId,
				new URLSearchParams({ ...order.params, q: 'f3 l1', page: '3' }),
			)
			expect(third.leads.map((l) => l.email)).toEqual(pages[2])
			expect(third.matching).toEqual({ count: matches, more: false })
			const second = await listLeadsPage(
				owner,
				listId,
				new URLSearchParams({
					...order.params,
					q: 'f3 l1',
					page: '2',
					before: third.previous!.before!,
				}),
			)
			expect(second.leads.map((l) => l.email)).toEqual(pages[1])
		}
		const none = await listLeadsPage(owner, listId, new URLSearchParams({ q: 'zz' }))
		expect(none.leads).toEqual([])
		expect(none.matching).toEqual({ count: 0, more: false })
		// every lead's email starts with "p0": more than the count goes to
		const broad = await listLeadsPage(owner, listId, new URLSearchParams({ q: 'p0' }))
		expect(broad.matching).toEqual({ count: 10_000, more: true })
		expect(broad.leads.map((l) => l.email).slice(0, 2)).toEqual([
			'p000001@example.com',
			'p000002@example.com',
		])
		const newest = await listLeadsPage(owner, listId, new URLSearchParams({ q: 'p0', dir: 'desc' }))
		expect(newest.leads[0]!.email).toBe('p012000@example.com')
		expect(newest.next).not.toBeNull()
	})

	test("a list's pages read the list's own index, never the primary key through other lists' leads", async () => {
		const other = await insertUser(db)
		// leads of other lists before and after this one's (ids are time-ordered)
		await insertList(other.id, 60_000)
		const listId = await insertList(ownerId, 20_000)
		await insertList(other.id, 20_000)
		await sql`analyze leads`.execute(db)
		const middle = await db
			.selectFrom('leads')
			.select('id')
			.where('list_id', '=', listId)
			.orderBy('id')
			.offset(10_000)
			.limit(1)
			.executeTakeFirstOrThrow()
		const cursor = { key: null, id: middle.id }
		const pages = [
			leadsPageQuery(listId, { q: '', sort: 'added', dir: 'asc' }, { after: null, before: null }),
			leadsPageQuery(listId, { q: '', sort: 'added', dir: 'desc' }, { after: null, before: null }),
			leadsPageQuery(listId, { q: '', sort: 'added', dir: 'asc' }, { after: cursor, before: null }),
			leadsPageQuery(listId, { q: '', sort: 'added', dir: 'asc' }, { after: null, before: cursor }),
			leadsPageQuery(listId, { q: '', sort: 'email', dir: 'asc' }, { after: null, before: null }),
		]
		for (const page of pages) {
			const plan = JSON.stringify(await page.explain('json'))
			expect(plan).not.toContain('leads_pkey')
			expect(plan).toMatch(/"Index Name":"leads_list_[a-z_]+_idx"/)
			expect(plan).not.toContain('"Node Type":"Sort"')
		}
		expect((await pages[0]!.execute()).map((l) => l.email).slice(0, 2)).toEqual([
			'p000001@example.com',
			'p000002@example.com',
		])
		// 100,000 leads written and analysed: 10 s alone, past 30 s beside the browser suite in CI
	}, 120_000)
})
