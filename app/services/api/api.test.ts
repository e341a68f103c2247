import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { beforeAll, describe, expect, test, vi } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { apiCall as call, apiOwner as owner, tokenFor } from '../../../tests/support/api.ts'
import { insertMember, insertWorkspace } from '../../../tests/support/team.ts'
import { createApiToken, listApiTokens, revokeApiToken } from '../api-tokens/api-tokens.server.ts'

// The public API as a client meets it: requests through the route module, real tokens, a real
// database; what comes back (status, problem+json, headers) is what a client sees.

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-api-test-'))
resetSingleton('config')
// every statement the pool's clients send (they bind pg's query when made: watched first)
const sent = vi.spyOn(pg.Client.prototype, 'query')

async function insertList(accountId: string, workspaceId: string | null, name: string) {
	const row = await db
		.insertInto('processing_list')
		.values({
			user_id: accountId,
			workspace_id: workspaceId,
			name,
			source_type: 'upload',
			status: 2,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	return row.id
}

type User = { id: string; email: string }

describe('/api/v1 tokens', () => {
	test('a session cookie is no credential: 401 as problem+json', async () => {
		const result = await call('GET', '/lead-lists', {
			headers: { Cookie: 'sb-localhost-auth-token=whatever' },
		})
		expect(result.status).toBe(401)
		expect(result.headers.get('Content-Type')).toBe('application/problem+json')
		expect(result.body).toMatchObject({ status: 401, code: 'unauthenticated' })
	})

	test("a token sees its account's lists; another account's id is 404", async () => {
		const a = await owner()
		const b = await owner()
		const mine = await insertList(a.id, null, 'Mine')
		const theirs = await insertList(b.id, null, 'Theirs')
		const token = await tokenFor(a, ['lists:read'])
		const list = await call('GET', '/lead-lists', { token })
		expect(list.status).toBe(200)
		expect(list.body!.data.map((l: { id: string }) => l.id)).toEqual([mine])
		expect((await call('GET', `/lead-lists/${mine}`, { token })).body).toMatchObject({
			id: mine,
			name: 'Mine',
			object: 'lead_list',
		})
		const foreign = await call('GET', `/lead-lists/${theirs}`, { token })
		expect(foreign.status).toBe(404)
		expect(foreign.body).toMatchObject({ code: 'not_found' })
		expect((await call('GET', `/lead-lists/${theirs}/leads`, { token })).status).toBe(404)
	})

	test("a token for one workspace cannot see another workspace's lists", async () => {
		const a = await owner()
		const one = await insertWorkspace(db, a.id, 'One')
		const two = await insertWorkspace(db, a.id, 'Two')
		const inOne = await insertList(a.id, one, 'In one')
		const inTwo = await insertList(a.id, two, 'In two')
		await insertList(a.id, null, 'Unassigned')
		const token = await tokenFor(a, ['lists:read'], [one])
		const list = await call('GET', '/lead-lists', { token })
		expect(list.body!.data.map((l: { id: string }) => l.id)).toEqual([inOne])
		expect((await call('GET', `/lead-lists/${inTwo}`, { token })).status).toBe(404)
	})

	test('a read token cannot write; a write token can', async () => {
		const a = await owner()
		const listId = await insertList(a.id, null, 'Keep')
		const reader = await tokenFor(a, ['lists:read'])
		const refused = await call('DELETE', `/lead-lists/${listId}`, { token: reader })
		expect(refused.status).toBe(403)
		expect(refused.body).toMatchObject({ code: 'insufficient_scope' })
		expect(
			await db.selectFrom('processing_list').select('id').where('id', '=', listId).execute(),
		).toHaveLength(1)
		// nor read another family
		expect((await call('GET', '/jobs', { token: reader })).status).toBe(403)
		const writer = await tokenFor(a, ['lists:write'])
		const deleted = await call('DELETE', `/lead-lists/${listId}`, { token: writer })
		expect(deleted.status).toBe(200)
		expect(deleted.body).toMatchObject({ id: listId, deleted: true })
	})

	test('a revoked token fails on the next request, and its last use is shown', async () => {
		const a = await owner()
		const token = await tokenFor(a, ['lists:read'])
		expect((await call('GET', '/lead-lists', { token })).status).toBe(200)
		const account = await loadAccountContext(db, a)
		const [shown] = await listApiTokens(account)
		expect(shown!.lastUsedAt).not.toBeNull()
		expect(shown!.prefix).toMatch(/^ls_live_/)
		expect(token.startsWith(shown!.prefix)).toBe(true)
		await revokeApiToken(account, shown!.id)
		const after = await call('GET', '/lead-lists', { token })
		expect(after.status).toBe(401)
		expect(after.body).toMatchObject({ code: 'invalid_token' })
	})

	test('the token is stored only as a hash', async () => {
		const a = await owner()
		const token = await tokenFor(a, ['lists:read'])
		const rows = await db
			.selectFrom('api_tokens')
			.selectAll()
			.where('account_id', '=', a.id)
			.execute()
		expect(JSON.stringify(rows)).not.toContain(token)
	})

	test("a member's token never does more than the member may now", async () => {
		const a = await owner()
		const one = await insertWorkspace(db, a.id, 'One')
		const two = await insertWorkspace(db, a.id, 'Two')
		const inTwo = await insertList(a.id, two, 'In two')
		const member = await insertMember(db, a, { role: 'admin', workspaceIds: [one, two] })
		const token = await tokenFor(member, ['lists:read'])
		expect((await call('GET', `/lead-lists/${inTwo}`, { token })).status).toBe(200)
		// the owner takes workspace two away: the token loses it on the next request
		await db
			.deleteFrom('team_member_workspace_acess')
			.where('team_member_id', '=', member.memberId)
			.where('workspace_id', '=', two)
			.execute()
		expect((await call('GET', `/lead-lists/${inTwo}`, { token })).status).toBe(404)
		// and the whole account when the membership ends
		await db
			.updateTable('team_members')
			.set({ status: 'revoked' })
			.where('id', '=', member.memberId)
			.execute()
		expect((await call('GET', '/lead-lists', { token })).status).toBe(401)
	})

	test('an editor cannot make tokens; an admin sees only its own', async () => {
		const a = await owner()
		const editor = await insertMember(db, a, { role: 'editor' })
		const editorAccount = await loadAccountContext(db, editor)
		await expect(
			createApiToken(editorAccount, { name: 'x', scopes: ['lists:read'], workspaceIds: [] }),
		).rejects.toMatchObject({ init: { status: 403 } })
		await tokenFor(a, ['lists:read'])
		const admin = await insertMember(db, a, { role: 'admin' })
		await tokenFor(admin, ['lists:read'])
		const adminAccount: AccountContext = await loadAccountContext(db, admin)
		expect((await listApiTokens(adminAccount)).map((t) => t.mine)).toEqual([true])
		expect(await listApiTokens(await loadAccountContext(db, a))).toHaveLength(2)
	})
})

describe('/api/v1 conventions', () => {
	let a: User
	let token: string
	beforeAll(async () => {
		a = await owner()
		token = await tokenFor(a, ['lists:write', 'jobs:read'])
	})

	test('pages walk every list once, newest first, with limit and starting_after', async () => {
		const user = await owner()
		const ids = []
		for (let i = 0; i < 5; i++) ids.push(await insertList(user.id, null, `L${i}`))
		// all made within one millisecond (an import's lists, a script's): a cursor kept to the
		// millisecond skipped some (seen in CI)
		await db
			.updateTable('processing_list')
			.set({
				created_at: sql`timestamptz '2026-11-01 10:00:00.123' + random() * interval '900 microseconds'`,
			})
			.where('id', 'in', ids)
			.execute()
		const reader = await tokenFor(user, ['lists:read'])
		const seen: string[] = []
		let cursor: string | null = null
		do {
			const query: string = `?limit=2${cursor ? `&starting_after=${cursor}` : ''}`
			const page = await call('GET', `/lead-lists${query}`, { token: reader })
			expect(page.status).toBe(200)
			expect(page.body!.data.length).toBeLessThanOrEqual(2)
			seen.push(...page.body!.data.map((l: { id: string }) => l.id))
			cursor = page.body!.next_cursor
			expect(page.body!.has_more).toBe(cursor !== null)
		} while (cursor)
		// every list once, in the order one page of all of them gives (newest first, ties by id)
		const whole = await call('GET', '/lead-lists?limit=100', { token: reader })
		expect(seen).toEqual(whole.body!.data.map((l: { id: string }) => l.id))
		expect([...seen].sort()).toEqual([...ids].sort())
	})

	test('HEAD answers as GET would, without the body', async () => {
		const reader = await tokenFor(a, ['lists:read'])
		const get = await call('GET', '/lead-lists?limit=1', { token: reader })
		const head = await call('HEAD', '/lead-lists?limit=1', { token: reader })
		expect([head.status, head.text]).toEqual([200, ''])
		expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
		expect((await call('HEAD', '/lead-lists')).status).toBe(401)
		expect((await call('HEAD', '/no-such-thing', { token: reader })).status).toBe(404)
	})

	test('a bad parameter is a 400 naming the field', async () => {
		const result = await call('GET', '/lead-lists?limit=1000', { token })
		expect(result.status).toBe(400)
		expect(result.body).toMatchObject({ code: 'invalid_request', field: 'limit' })
		const id = await call('GET', '/lead-lists/not-an-id', { token })
		expect(id.status).toBe(400)
		expect(id.body).toMatchObject({ field: 'id' })
	})

	test('the mapping form rules hold at the field: a column used twice', async () => {
		const result = await call('POST', '/lead-lists', {
			token,
			json: { uploadId: crypto.randomUUID(), name: 'X', email: 0, first_name: 0 },
		})
		expect(result.status).toBe(400)
		expect(result.body!.errors).toContainEqual(expect.objectContaining({ field: 'first_name' }))
	})

	async function upload(csv: string) {
		const form = new FormData()
		form.set('file', new File([csv], 'leads.csv', { type: 'text/csv' }))
		const request = new Request('http://localhost/x', { method: 'POST', body: form })
		const uploaded = await call('POST', '/uploads', {
			token,
			body: await request.arrayBuffer(),
			headers: { 'Content-Type': request.headers.get('Content-Type')! },
		})
		expect(uploaded.status).toBe(201)
		return uploaded.body!
	}

	const listsOf = async (accountId: string) =>
		(await db.selectFrom('processing_list').select('id').where('user_id', '=', accountId).execute())
			.length

	test('an upload and a mapping make a list; a replay answers the first answer and makes none', async () => {
		const file = await upload('email,first name\nada@example.com,Ada\ngrace@example.com,Grace\n')
		expect(file).toMatchObject({ has_header: true, suggested_mapping: { email: 0, first_name: 1 } })
		const body = {
			uploadId: file.id,
			name: 'From the API',
			hasHeader: true,
			...file.suggested_mapping,
		}
		const before = await listsOf(a.id)
		const first = await call('POST', '/lead-lists', {
			token,
			json: body,
			headers: { 'Idempotency-Key': 'k-1' },
		})
		expect(first.status).toBe(201)
		expect(first.body).toMatchObject({ name: 'From the API', object: 'lead_list' })
		const again = await call('POST', '/lead-lists', {
			token,
			json: body,
			headers: { 'Idempotency-Key': 'k-1' },
		})
		expect(again.status).toBe(201)
		expect(again.text).toBe(first.text)
		expect(again.headers.get('Idempotent-Replayed')).toBe('true')
		expect(await listsOf(a.id)).toBe(before + 1)
		const other = await call('POST', '/lead-lists', {
			token,
			json: { ...body, name: 'Another' },
			headers: { 'Idempotency-Key': 'k-1' },
		})
		expect(other.status).toBe(422)
		expect(other.body).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' })
		expect(await listsOf(a.id)).toBe(before + 1)
	})

	test('the same key sent three times at once does the work once', async () => {
		const file = await upload('email\nada@example.com\n')
		const body = { uploadId: file.id, name: 'Once', hasHeader: true, email: 0 }
		const before = await listsOf(a.id)
		const results = await Promise.all(
			[1, 2, 3].map(() =>
				call('POST', '/lead-lists', { token, json: body, headers: { 'Idempotency-Key': 'k-2' } }),
			),
		)
		expect(await listsOf(a.id)).toBe(before + 1)
		for (const result of results) expect([201, 409]).toContain(result.status)
		const created = results.filter((r) => r.status === 201)
		expect(new Set(created.map((r) => r.body!.id)).size).toBe(1)
	})

	test('past the limit: 429 with Retry-After and RateLimit headers', async () => {
		process.env.API_RATE_LIMIT_PER_MINUTE = '3'
		resetSingleton('config')
		try {
			const limited = await tokenFor(a, ['jobs:read'])
			const first = await call('GET', '/jobs', { token: limited })
			expect(first.status).toBe(200)
			expect(first.headers.get('RateLimit-Limit')).toBe('3')
			expect(first.headers.get('RateLimit-Remaining')).toBe('2')
			await call('GET', '/jobs', { token: limited })
			await call('GET', '/jobs', { token: limited })
			const refused = await call('GET', '/jobs', { token: limited })
			expect(refused.status).toBe(429)
			expect(refused.body).toMatchObject({ code: 'rate_limited' })
			expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
			// another token has its own budget
			const other = await tokenFor(a, ['jobs:read'])
			expect((await call('GET', '/jobs', { token: other })).status).toBe(200)
		} finally {
			delete process.env.API_RATE_LIMIT_PER_MINUTE
			resetSingleton('config')
		}
	})
})

describe("/api/v1 a list's leads", () => {
	async function leadsOf(accountId: string, listId: string, count: number) {
		const rows = Array.from({ length: count }, (_, i) => ({
			user_id: accountId,
			list_id: listId,
			email: `lead${i}@example.com`,
			first_name: i === 0 ? 'Ada' : `First${i}`,
			last_name: null,
			company_name: i === 0 ? 'Ada "Quoted" & Co' : null,
			verify_status: i % 2 === 0 ? 'valid' : null,
			verify_role: i % 2 === 0 ? false : null,
			data: i === 0 ? JSON.stringify({ team: 'ünïcode ✓', size: 12 }) : '{}',
		}))
		const inserted = await db.insertInto('leads').values(rows).returning('id').execute()
		// the API's order: as added (uuidv7 ids)
		return inserted.map((r) => r.id).sort()
	}

	test('pages by cursor in added order, each lead whole, filters and searches as the page does', async () => {
		const a = await owner()
		const listId = await insertList(a.id, null, 'Paged')
		const ids = await leadsOf(a.id, listId, 5)
		const token = await tokenFor(a, ['lists:read'])
		const first = await call('GET', `/lead-lists/${listId}/leads?limit=2`, { token })
		expect(first.status).toBe(200)
		expect(first.headers.get('Content-Type')).toBe('application/json')
		expect(first.headers.get('RateLimit-Limit')).not.toBeNull()
		expect(first.body).toMatchObject({ object: 'list', has_more: true, next_cursor: ids[1] })
		expect(first.body!.data.map((l: { id: string }) => l.id)).toEqual(ids.slice(0, 2))
		const ada = first.body!.data.find((l: { first_name: string }) => l.first_name === 'Ada')
		expect(ada).toEqual({
			id: ada.id,
			email: ada.email,
			first_name: 'Ada',
			last_name: null,
			title: null,
			company_name: 'Ada "Quoted" & Co',
			company_domain: null,
			linkedin_url: null,
			location: null,
			phone: null,
			email_status: null,
			verification_status: 'valid',
			role_account: false,
			data: { team: 'ünïcode ✓', size: 12 },
		})
		const pages = [first.body!.data]
		let cursor = first.body!.next_cursor as string | null
		while (cursor) {
			const next = await call(
				'GET',
				`/lead-lists/${listId}/leads?limit=2&starting_after=${cursor}`,
				{
					token,
				},
			)
			pages.push(next.body!.data)
			cursor = next.body!.next_cursor
			if (!cursor) expect(next.body!.has_more).toBe(false)
		}
		expect(pages.flat().map((l: { id: string }) => l.id)).toEqual(ids)
		expect(pages.map((p) => p.length)).toEqual([2, 2, 1])

		const valid = await call('GET', `/lead-lists/${listId}/leads?verification_status=valid`, {
			token,
		})
		expect(valid.body!.data.map((l: { id: string }) => l.id)).toEqual(
			[ids[0], ids[2], ids[4]].filter(Boolean),
		)
		const searched = await call('GET', `/lead-lists/${listId}/leads?q=ada`, { token })
		expect(searched.body!.data).toHaveLength(1)
		expect(searched.body!.data[0].first_name).toBe('Ada')
		const empty = await call('GET', `/lead-lists/${listId}/leads?q=nobody`, { token })
		expect(empty.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null })
		const bad = await call('GET', `/lead-lists/${listId}/leads?starting_after=nope`, { token })
		expect(bad.status).toBe(400)
		expect(bad.headers.get('Content-Type')).toContain('application/problem+json')
	})

	test("a page of leads is two statements: the token's context, then the list's check with the page", async () => {
		const a = await owner()
		const listId = await insertList(a.id, null, 'Counted')
		await leadsOf(a.id, listId, 3)
		const token = await tokenFor(a, ['lists:read'])
		// the first request of an account makes its settings row, once in its life
		await call('GET', `/lead-lists/${listId}/leads`, { token })
		const before = sent.mock.calls.length
		const page = await call('GET', `/lead-lists/${listId}/leads?limit=2`, { token })
		expect(page.body!.data).toHaveLength(2)
		expect(sent.mock.calls.length - before).toBe(2)
	})

	test("another workspace's list, another account's or none: 404, and no leads shown", async () => {
		const a = await owner()
		const one = await insertWorkspace(db, a.id, 'One')
		const two = await insertWorkspace(db, a.id, 'Two')
		const inTwo = await insertList(a.id, two, 'In two')
		await leadsOf(a.id, inTwo, 2)
		const token = await tokenFor(a, ['lists:read'], [one])
		const refused = await call('GET', `/lead-lists/${inTwo}/leads`, { token })
		expect(refused.status).toBe(404)
		expect(refused.body).toMatchObject({ code: 'not_found' })
		expect(refused.text).not.toContain('lead0@example.com')
		const none = await call('GET', `/lead-lists/00000000-0000-4000-8000-000000000000/leads`, {
			token,
		})
		expect(none.status).toBe(404)
	})
})
