import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertWorkspace } from '../../../tests/support/team.ts'
import {
	findBulkAction,
	NOT_YOURS,
	runBulkAction,
	startBulkAction,
} from '../bulk/bulk-actions.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { leadBulk } from './leads-bulk.server.ts'

// Issue 34: bulk delete and move of a list's leads touch only the account's leads (another
// account's ids are skipped and reported), run once under a double submit, and change the
// lists' counts with the leads.

type Account = Awaited<ReturnType<typeof contextOf>>
let owner: Account
let stranger: Account

beforeAll(async () => {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	await insertWorkspace(db, user.id, 'Main')
	owner = await contextOf(db, user)
	const other = await insertUser(db)
	await insertSubscription(db, other.id)
	await insertWorkspace(db, other.id, 'Theirs')
	stranger = await contextOf(db, other)
})

async function listWith(account: Account, emails: string[], status = 2) {
	const listId = randomUUID()
	const workspace = account.workspaces[0]?.id ?? null
	await db
		.insertInto('processing_list')
		.values({
			id: listId,
			user_id: account.accountId,
			workspace_id: workspace,
			name: `List ${listId.slice(0, 6)}`,
			source_type: 'upload',
			status,
			found: emails.length,
		})
		.execute()
	const leads = emails.length
		? await db
				.insertInto('leads')
				.values(
					emails.map((email) => ({
						list_id: listId,
						user_id: account.accountId,
						workspace_id: workspace,
						email,
					})),
				)
				.returning(['id', 'email'])
				.execute()
		: []
	return { listId, leadIds: emails.map((e) => leads.find((l) => l.email === e)!.id) }
}

async function found(listId: string) {
	const row = await db
		.selectFrom('processing_list')
		.select('found')
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
	return row.found
}

async function leadsOf(listId: string) {
	const rows = await db.selectFrom('leads').select('email').where('list_id', '=', listId).execute()
	return rows.map((r) => r.email).sort()
}

async function startAndRun(account: Account, input: Parameters<typeof startBulkAction>[2]) {
	const started = await startBulkAction(account, leadBulk, input)
	await runBulkAction(started.id, [leadBulk])
	return findBulkAction(account, started.id)
}

const mail = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`

describe('delete', () => {
	test("deletes the account's selected leads and counts them out; another account's are skipped and kept", async () => {
		const a = [mail('a'), mail('b'), mail('c')]
		const mine = await listWith(owner, a)
		const theirs = await listWith(stranger, [mail('x')])
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { ids: [mine.leadIds[0]!, mine.leadIds[1]!, theirs.leadIds[0]!, 'nope'] },
		})
		expect(result).toMatchObject({ status: 'done', total: 4, done: 2, skipped: 2, failed: 0 })
		expect(result.notes.filter((n) => n.reason === NOT_YOURS)).toHaveLength(2)
		expect(await leadsOf(mine.listId)).toEqual([a[2]])
		expect(await found(mine.listId)).toBe(1)
		expect(await leadsOf(theirs.listId)).toHaveLength(1)
		expect(await found(theirs.listId)).toBe(1)
	})

	test('all matching the search deletes the matches of that list only', async () => {
		const tag = Math.random().toString(36).slice(2, 8)
		const mine = await listWith(owner, [`${tag}1@example.com`, `${tag}2@example.com`, mail('keep')])
		const other = await listWith(owner, [`${tag}3@example.com`])
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { filter: { list: mine.listId, q: tag } },
		})
		expect(result).toMatchObject({ status: 'done', total: 2, done: 2, skipped: 0 })
		expect(await found(mine.listId)).toBe(1)
		expect(await leadsOf(other.listId)).toEqual([`${tag}3@example.com`])
	})

	test("a filter naming another account's list matches nothing", async () => {
		const theirs = await listWith(stranger, [mail('x')])
		await expect(
			startBulkAction(owner, leadBulk, {
				action: 'delete',
				selection: { filter: { list: theirs.listId } },
			}),
		).rejects.toThrow(/Nothing matches/)
		expect(await found(theirs.listId)).toBe(1)
	})

	test('leads of a list still being filled are left with the reason', async () => {
		const running = await listWith(owner, [mail('r')], 1)
		const result = await startAndRun(owner, {
			action: 'delete',
			selection: { ids: running.leadIds },
		})
		expect(result).toMatchObject({ done: 0, skipped: 1 })
		expect(result.notes[0]?.reason).toMatch(/still being filled/)
		expect(await leadsOf(running.listId)).toHaveLength(1)
	})
})

describe('move', () => {
	test('moves the leads and changes both counts; an email the target has stays', async () => {
		const shared = mail('shared')
		const from = await listWith(owner, [mail('m1'), mail('m2'), shared])
		const to = await listWith(owner, [shared])
		const theirs = await listWith(stranger, [mail('t')])
		const result = await startAndRun(owner, {
			action: 'move',
			params: { listId: to.listId },
			selection: { ids: [...from.leadIds, theirs.leadIds[0]!] },
		})
		expect(result).toMatchObject({ status: 'done', total: 4, done: 2, skipped: 2 })
		expect(result.notes.map((n) => n.reason).sort()).toEqual(
			[NOT_YOURS, 'that list already has this email'].sort(),
		)
		expect(await found(from.listId)).toBe(1)
		expect(await found(to.listId)).toBe(3)
		expect(await leadsOf(from.listId)).toEqual([shared])
		expect(await leadsOf(to.listId)).toHaveLength(3)
		expect(await leadsOf(theirs.listId)).toHaveLength(1)
	})

	test("a move into another account's list is refused before anything starts", async () => {
		const from = await listWith(owner, [mail('f')])
		const theirs = await listWith(stranger, [])
		await expect(
			startBulkAction(owner, leadBulk, {
				action: 'move',
				params: { listId: theirs.listId },
				selection: { ids: from.leadIds },
			}),
		).rejects.toMatchObject({ init: { status: 404 } })
		expect(await found(theirs.listId)).toBe(0)
	})
})

describe('exactly once', () => {
	test('a double submit starts one job that deletes once', async () => {
		const mine = await listWith(owner, [mail('d1'), mail('d2')])
		const formData = new FormData()
		formData.set('idempotencyKey', newFormKey())
		for (const id of mine.leadIds) formData.append('ids', id)
		const submit = () =>
			oncePerSubmission({ accountId: owner.accountId, form: 'leads-bulk', formData }, (trx) =>
				startBulkAction(
					owner,
					leadBulk,
					{ action: 'delete', selection: { ids: mine.leadIds } },
					trx,
				),
			)
		const [first, second] = await Promise.all([submit(), submit()])
		expect(second.id).toBe(first.id)
		const rows = await db
			.selectFrom('bulk_actions')
			.select('id')
			.where('user_id', '=', owner.accountId)
			.where('kind', '=', 'leads')
			.where(sql<boolean>`${mine.leadIds[0]!} = any(ids)`)
			.execute()
		expect(rows).toHaveLength(1)
		await runBulkAction(first.id, [leadBulk])
		await runBulkAction(first.id, [leadBulk])
		expect(await found(mine.listId)).toBe(0)
		expect(await findBulkAction(owner, first.id)).toMatchObject({ done: 2, skipped: 0 })
	})
})
