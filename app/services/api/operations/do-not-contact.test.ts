import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { db } from '../../../../db/index.server.ts'
import { apiCall, apiOwner, tokenFor } from '../../../../tests/support/api.ts'
import { insertWorkspace } from '../../../../tests/support/team.ts'

// Do-not-contact entries through /api/v1 (issue 37 point 2): the page's service, its rules
// (free mail domains asked for, duplicates refused, workspaces) on the real database.

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-api-dnc-'))

const entriesOf = (accountId: string) =>
	db.selectFrom('do_not_contact').select('value').where('user_id', '=', accountId).execute()

describe('/api/v1/do-not-contact', () => {
	test('adds, lists by cursor and removes entries, with the page rules at the field', async () => {
		const a = await apiOwner()
		const token = await tokenFor(a, ['do-not-contact:write'])
		for (const value of ['ceo@acme.com', 'rival.com', 'Boss@Other.com']) {
			const added = await apiCall('POST', '/do-not-contact', {
				token,
				json: { value, reason: 'competitor', scope: 'account' },
			})
			expect(added.status).toBe(201)
		}
		const again = await apiCall('POST', '/do-not-contact', {
			token,
			json: { value: 'CEO@acme.com', reason: 'competitor', scope: 'account' },
		})
		expect(again.status).toBe(400)
		expect(again.body).toMatchObject({ errors: [{ field: 'value' }] })
		const freeMail = await apiCall('POST', '/do-not-contact', {
			token,
			json: { value: 'gmail.com', reason: 'competitor', scope: 'account' },
		})
		expect(freeMail.body).toMatchObject({ errors: [{ field: 'confirmFreeMail' }] })
		const first = await apiCall('GET', '/do-not-contact?limit=2', { token })
		expect(first.body!.data.map((e: { value: string }) => e.value)).toEqual([
			'boss@other.com',
			'rival.com',
		])
		const second = await apiCall(
			'GET',
			`/do-not-contact?limit=2&starting_after=${first.body!.next_cursor}`,
			{ token },
		)
		expect(second.body).toMatchObject({ data: [{ value: 'ceo@acme.com' }], has_more: false })
		const removed = await apiCall('DELETE', `/do-not-contact/${first.body!.data[0].id}`, {
			token,
		})
		expect(removed.status).toBe(200)
		expect((await entriesOf(a.id)).map((e) => e.value).sort()).toEqual([
			'ceo@acme.com',
			'rival.com',
		])
	})

	test("another account's entry is 404, a workspace token keeps to its own, a reader cannot add", async () => {
		const a = await apiOwner()
		const b = await apiOwner()
		const one = await insertWorkspace(db, a.id, 'One')
		const two = await insertWorkspace(db, a.id, 'Two')
		const token = await tokenFor(a, ['do-not-contact:write'])
		const inTwo = await apiCall('POST', '/do-not-contact', {
			token,
			json: { value: 'two.com', reason: 'customer', scope: two },
		})
		expect(inTwo.status).toBe(201)
		const id = inTwo.body!.id as string
		const theirs = await tokenFor(b, ['do-not-contact:write'])
		expect((await apiCall('DELETE', `/do-not-contact/${id}`, { token: theirs })).status).toBe(404)
		const onlyOne = await tokenFor(a, ['do-not-contact:write'], [one])
		expect((await apiCall('GET', '/do-not-contact', { token: onlyOne })).body!.data).toEqual([])
		expect((await apiCall('DELETE', `/do-not-contact/${id}`, { token: onlyOne })).status).toBe(404)
		const reader = await tokenFor(a, ['do-not-contact:read'])
		const refused = await apiCall('POST', '/do-not-contact', {
			token: reader,
			json: { value: 'x.com', reason: 'customer', scope: 'account' },
		})
		expect(refused.status).toBe(403)
		expect((await entriesOf(a.id)).map((e) => e.value)).toEqual(['two.com'])
	})
})
