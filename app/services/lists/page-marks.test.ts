import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { listLeadsPage } from './leads-page.server.ts'
import { buildPageMarks, MARK_EVERY } from './page-marks.server.ts'
import type { LeadSort } from './list-kinds.ts'

// A typed page number far from both ends of a finished list starts from a mark (every
// MARK_EVERY-th lead in that order), built by a job the first such page asks for.

let owner: AccountContext
let ownerId: string
const ROWS = 4 * MARK_EVERY + 3_000

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	ownerId = user.id
	owner = await loadAccountContext(db, user)
})

/** A list of `rows` leads, added in the order of n; names and companies repeat (ties). */
async function insertList(rows: number, status = 2) {
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: ownerId, name: 'Big', source_type: 'upload', status, found: rows })
		.returning('id')
		.executeTakeFirstOrThrow()
	await addLeads(list.id, 1, rows)
	return list.id
}

async function addLeads(listId: string, from: number, to: number) {
	await sql`
		insert into leads (list_id, user_id, email, first_name, last_name, company_name)
		select ${listId}, ${ownerId}, 'p' || lpad(((n * 7919) % 100003)::text, 6, '0') || '@example.com',
			'F' || (n % 7), 'L' || (n % 13), 'Co ' || (n % 5)
		from generate_series(${from}::int, ${to}::int) n
	`.execute(db)
}

/** Each lead's email on a page, as the page with this search shows it. */
async function typed(listId: string, order: Record<string, string>, page: number) {
	const shown = await listLeadsPage(
		owner,
		listId,
		new URLSearchParams({ ...order, page: `${page}` }),
	)
	return shown.leads.map((lead) => lead.email)
}

/** The same page by a plain offset over the whole list, in SQL written out here. */
async function expected(listId: string, sort: string, desc: boolean, page: number) {
	const dir = desc ? 'desc' : 'asc'
	const key = {
		added: '',
		email: `lower(email) collate "C" ${dir}, `,
		company: `coalesce(lower(company_name), '') collate "C" ${dir}, `,
		last_name: `coalesce(lower(last_name), '') collate "C" ${dir}, coalesce(lower(first_name), '') collate "C" ${dir}, `,
	}[sort]
	const { rows } = await sql<{ email: string }>`
		select email from leads where list_id = ${listId}
		order by ${sql.raw(key!)} id ${sql.raw(dir)}
		offset ${(page - 1) * 50} limit 50`.execute(db)
	return rows.map((r) => r.email)
}

async function marksOf(listId: string) {
	return db
		.selectFrom('lead_page_marks')
		.select(['sort', 'found', 'rows', 'built_at'])
		.where('list_id', '=', listId)
		.orderBy('sort')
		.execute()
}

async function queued(listId: string) {
	const { rows } = await sql<{ sort: string }>`
		select data->>'sort' as sort from pgboss.job
		where name = 'lead-page-marks' and data->>'listId' = ${listId} order by 1`.execute(db)
	return rows.map((r) => r.sort)
}

const ORDERS: { order: Record<string, string>; sort: LeadSort; desc: boolean }[] = [
	{ order: {}, sort: 'added', desc: false },
	{ order: { dir: 'desc' }, sort: 'added', desc: true },
	{ order: { sort: 'email', dir: 'desc' }, sort: 'email', desc: true },
	{ order: { sort: 'company' }, sort: 'company', desc: false },
	{ order: { sort: 'last_name', dir: 'desc' }, sort: 'last_name', desc: true },
]
// far from both ends; 201 and 202 sit on either side of a mark (rows 9,999 and 10,049)
const PAGES = [150, 201, 202, 301, 400]

// 14 s alone; past 30 s in CI beside the browser suite (2 cores)
test(
	'typed pages far into a finished list are the same before and after its marks are built',
	{ timeout: 120_000 },
	async () => {
		const listId = await insertList(ROWS)
		for (const { order, sort, desc } of ORDERS) {
			for (const page of PAGES) {
				expect(await typed(listId, order, page)).toEqual(await expected(listId, sort, desc, page))
			}
		}
		// each order asked for its marks once, however many pages were typed
		expect(await queued(listId)).toEqual(['added', 'company', 'email', 'last_name'])
		expect((await marksOf(listId)).map((m) => m.built_at)).toEqual([null, null, null, null])

		for (const sort of ['added', 'email', 'company', 'last_name'] as const) {
			await buildPageMarks(listId, sort)
		}
		const built = await marksOf(listId)
		expect(built.map((m) => [m.sort, m.found, m.rows])).toEqual([
			['added', ROWS, ROWS],
			['company', ROWS, ROWS],
			['email', ROWS, ROWS],
			['last_name', ROWS, ROWS],
		])
		for (const { order, sort, desc } of ORDERS) {
			for (const page of PAGES) {
				expect(await typed(listId, order, page)).toEqual(await expected(listId, sort, desc, page))
			}
			// past the end is still empty
			expect(await typed(listId, order, Math.ceil(ROWS / 50) + 1)).toEqual([])
		}
		expect(await queued(listId)).toHaveLength(4)

		// the pages really start from the marks: with the added order's marks moved one lead on,
		// its far pages move one lead on too (and the other orders' do not)
		await sql`
		update lead_page_marks set ids = array(
			select (select id from leads l where l.list_id = ${listId} and l.id > m order by id limit 1)
			from unnest(ids) m)
		where list_id = ${listId} and sort = 'added'`.execute(db)
		const shifted = await typed(listId, {}, 150)
		const plain = await expected(listId, 'added', false, 150)
		expect(shifted.slice(0, 49)).toEqual(plain.slice(1))
		expect(await typed(listId, { sort: 'company' }, 150)).toEqual(
			await expected(listId, 'company', false, 150),
		)
	},
)

test('marks of a list that grew since are not used, and are asked for again', async () => {
	const listId = await insertList(ROWS)
	await buildPageMarks(listId, 'added')
	// the list went on (a resumed import) and finished again, bigger
	await addLeads(listId, ROWS + 1, ROWS + 2_000)
	await db
		.updateTable('processing_list')
		.set({ found: ROWS + 2_000 })
		.where('id', '=', listId)
		.execute()
	for (const page of [150, 300]) {
		expect(await typed(listId, { dir: 'desc' }, page)).toEqual(
			await expected(listId, 'added', true, page),
		)
	}
	expect(await marksOf(listId)).toEqual([
		{ sort: 'added', found: ROWS + 2_000, rows: null, built_at: null },
	])
	await buildPageMarks(listId, 'added')
	expect((await marksOf(listId))[0]).toMatchObject({ rows: ROWS + 2_000 })
	expect(await typed(listId, { dir: 'desc' }, 300)).toEqual(
		await expected(listId, 'added', true, 300),
	)
})

test('a list still being imported asks for no marks; a job for one builds none', async () => {
	const listId = await insertList(ROWS, 1)
	expect(await typed(listId, {}, 250)).toEqual(await expected(listId, 'added', false, 250))
	expect(await marksOf(listId)).toEqual([])
	await buildPageMarks(listId, 'added')
	expect(await marksOf(listId)).toEqual([])
	expect(await queued(listId)).toEqual([])
})
