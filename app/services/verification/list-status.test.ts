import { parse } from 'csv-parse/sync'
import { expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { buildAccounts, contextOf, outcomeOf } from '../../../tests/support/team.ts'
import { insertEmails } from '../../../tests/support/verification.ts'
import { streamListCsv } from '../lists/export.server.ts'
import { loadListPage } from '../lists/list-page.server.ts'
import { loadVerifyPage, verifyPageAction } from './verify-page.server.ts'

// Issue 35 point 2: a lead's status in the list table, its filter and sort, the CSV export,
// an imported status kept apart; every new page and form a 404 outside the account's reach.

const get = (path: string) => new Request(`http://localhost${path}`)

async function listWithStatuses() {
	const me = await accountWithCredits(0)
	const emails = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com', 'e@x.com']
	const listId = await insertEmails(me.accountId!, emails)
	const set = async (email: string, status: string | null, imported?: string) =>
		db
			.updateTable('leads')
			.set({
				verify_status: status,
				verify_role: status ? email === 'b@x.com' : null,
				verified_at: status ? new Date() : null,
				verify_provider: status ? 'millionverifier' : null,
				email_status: imported ?? null,
			})
			.where('list_id', '=', listId)
			.where('email', '=', email)
			.execute()
	await set('a@x.com', 'invalid')
	await set('b@x.com', 'valid')
	await set('c@x.com', null, 'verified')
	await set('d@x.com', 'catch_all', 'verified')
	return { me, listId }
}

test('the list table shows our status, the role flag, and an imported status only where we never checked', async () => {
	const { me, listId } = await listWithStatuses()
	const page = await loadListPage('leads', me, listId, get(`/lists/${listId}`))
	const rows = new Map(
		page.rows.map((r) => [(r as unknown as { email: string }).email, r as Record<string, unknown>]),
	)
	expect(rows.get('b@x.com')).toMatchObject({ verify_status: 'valid', verify_role: true })
	expect(rows.get('c@x.com')).toMatchObject({ verify_status: null, imported_status: 'verified' })
	// our check wins over the file's word
	expect(rows.get('d@x.com')).toMatchObject({ verify_status: 'catch_all', imported_status: null })
})

test('filter and sort by status', async () => {
	const { me, listId } = await listWithStatuses()
	const emailsOf = async (search: string) =>
		(await loadListPage('leads', me, listId, get(`/lists/${listId}?${search}`))).rows.map(
			(r) => (r as unknown as { email: string }).email,
		)
	expect(await emailsOf('status=invalid')).toEqual(['a@x.com'])
	expect((await emailsOf('status=unverified')).sort()).toEqual(['c@x.com', 'e@x.com'])
	const sorted = await emailsOf('sort=verify')
	expect(sorted.slice(0, 3)).toEqual(['b@x.com', 'd@x.com', 'a@x.com'])
	expect((await emailsOf('sort=verify&dir=desc'))[4]).toBe('b@x.com')
	const page = await loadListPage('leads', me, listId, get(`/lists/${listId}?status=valid&q=b`))
	expect(page.query).toMatchObject({ status: 'valid', q: 'b' })
	expect(page.rows).toHaveLength(1)
})

test('the CSV export carries our status beside the imported one, once the list was verified', async () => {
	const { me, listId } = await listWithStatuses()
	const csv = async (id: string) =>
		parse(Buffer.from(await new Response((await streamListCsv(me, id)).stream).arrayBuffer()), {
			bom: true,
		}) as string[][]
	const records = await csv(listId)
	const header = records[0]!
	const at = (name: string) => header.indexOf(name)
	expect(at('verification_status')).toBeGreaterThan(at('email_status'))
	const d = records.find((r) => r[0] === 'd@x.com')!
	expect([d[at('email_status')], d[at('verification_status')]]).toEqual(['verified', 'catch_all'])
	const b = records.find((r) => r[0] === 'b@x.com')!
	expect(b[at('verification_role')]).toBe('yes')
	// a list never verified exports as before
	const plain = await insertEmails(me.accountId!, ['z@x.com'])
	expect((await csv(plain))[0]).not.toContain('verification_status')
})

test("the verify page and its form: another account's list and a member without the workspace get 404", async () => {
	const { users, inX } = await buildAccounts(db)
	const form = (fields: Record<string, string>) =>
		new Request(`http://localhost/lists/${inX.list}/verify`, {
			method: 'POST',
			body: new URLSearchParams(fields),
		})
	for (const who of [users.stranger, users.noX]) {
		const context = await contextOf(db, who)
		expect(await outcomeOf(() => loadVerifyPage(context, inX.list, get('/')))).toBe(404)
		expect(
			await outcomeOf(() =>
				verifyPageAction(
					context,
					inX.list,
					form({ intent: 'estimate', payWith: 'credits', only: 'all' }),
				),
			),
		).toBe(404)
	}
	const owner = await contextOf(db, users.owner)
	expect(await outcomeOf(() => loadVerifyPage(owner, inX.list, get('/')))).toBe('ok')
})
