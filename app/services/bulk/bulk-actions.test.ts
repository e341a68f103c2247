import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertWorkspace } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { startWorkers } from '../../jobs/worker.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { domainBulk } from '../domains/bulk.server.ts'
import { deleteDomain } from '../domains/delete.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { findBulkAction, NOT_YOURS, runBulkAction, startBulkAction } from './bulk-actions.server.ts'
import type { BulkHandler } from './types.ts'

// Issue 34: bulk actions touch only the account's rows (others' ids are skipped and counted),
// run once per submission, say why a row was left alone, and resume after a crash.

async function owner(name = 'Main') {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, name)
	return { user, workspaceId, account: await loadAccountContext(db, user) }
}

async function domains(userId: string, workspaceId: string, names: string[]) {
	const rows = await db
		.insertInto('domains')
		.values(
			names.map((name) => ({
				user_id: userId,
				workspace_id: workspaceId,
				name,
				source: 'imported',
			})),
		)
		.returning(['id', 'name'])
		.execute()
	return names.map((n) => rows.find((r) => r.name === n)!.id)
}

async function subscribe(userId: string, domainId: string) {
	await db
		.insertInto('domain_subscriptions')
		.values({
			user_id: userId,
			domain_id: domainId,
			status: 'active',
			price_cents: 1500,
			billing_date: new Date(),
			expire_date: new Date(Date.now() + 30 * 86_400_000),
		})
		.execute()
}

async function existing(ids: string[]) {
	const rows = await db.selectFrom('domains').select('id').where('id', 'in', ids).execute()
	return rows.map((r) => r.id).sort()
}

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 9)}.com`

async function startAndRun(
	account: AccountContext,
	input: Parameters<typeof startBulkAction>[2],
	handlers: BulkHandler[] = [domainBulk],
) {
	const started = await startBulkAction(account, domainBulk, input)
	await runBulkAction(started.id, handlers)
	return findBulkAction(account, started.id)
}

describe('ownership', () => {
	test("another account's domain ids are skipped and reported, never touched", async () => {
		const mine = await owner()
		const theirs = await owner()
		const myIds = await domains(mine.user.id, mine.workspaceId, [unique('a'), unique('b')])
		const theirIds = await domains(theirs.user.id, theirs.workspaceId, [unique('x'), unique('y')])
		const result = await startAndRun(mine.account, {
			action: 'delete',
			selection: { ids: [...myIds, ...theirIds, 'not-a-uuid'] },
		})
		expect(result).toMatchObject({ status: 'done', total: 5, done: 2, skipped: 3, failed: 0 })
		expect(result.notes.filter((n) => n.reason === NOT_YOURS)).toHaveLength(3)
		// mine are gone, theirs are all still there
		expect(await existing(myIds)).toEqual([])
		expect(await existing(theirIds)).toEqual([...theirIds].sort())
	})

	test("all matching the filter is the account's matching rows only", async () => {
		const mine = await owner()
		const theirs = await owner()
		const tag = Math.random().toString(36).slice(2, 8)
		const myMatching = await domains(mine.user.id, mine.workspaceId, [
			`${tag}-one.com`,
			`${tag}-two.com`,
		])
		const myOther = await domains(mine.user.id, mine.workspaceId, [unique('other')])
		const theirMatching = await domains(theirs.user.id, theirs.workspaceId, [`${tag}-three.com`])
		const target = await insertWorkspace(db, mine.user.id, 'Clients')
		const account = await loadAccountContext(db, mine.user)
		const result = await startAndRun(account, {
			action: 'move',
			params: { workspaceId: target },
			selection: { filter: { q: tag } },
		})
		expect(result).toMatchObject({ status: 'done', total: 2, done: 2, skipped: 0 })
		const moved = await db
			.selectFrom('domains')
			.select(['id', 'workspace_id'])
			.where('id', 'in', [...myMatching, ...myOther, ...theirMatching])
			.execute()
		const where = Object.fromEntries(moved.map((r) => [r.id, r.workspace_id]))
		expect(myMatching.map((id) => where[id])).toEqual([target, target])
		expect(where[myOther[0]!]).toBe(mine.workspaceId)
		expect(where[theirMatching[0]!]).toBe(theirs.workspaceId)
	})

	test("a move to another account's workspace is refused before anything starts", async () => {
		const mine = await owner()
		const theirs = await owner()
		const ids = await domains(mine.user.id, mine.workspaceId, [unique('m')])
		await expect(
			startBulkAction(mine.account, domainBulk, {
				action: 'move',
				params: { workspaceId: theirs.workspaceId },
				selection: { ids },
			}),
		).rejects.toMatchObject({ init: { status: 404 } })
		expect(
			await db
				.selectFrom('bulk_actions')
				.select('id')
				.where('user_id', '=', mine.user.id)
				.execute(),
		).toEqual([])
	})
})

describe('refusals', () => {
	test('deleting a domain with a live subscription or active inboxes is refused with the reason', async () => {
		const { user, workspaceId, account } = await owner()
		const [paid, withInbox, free] = await domains(user.id, workspaceId, [
			unique('paid'),
			unique('inbox'),
			unique('free'),
		])
		await subscribe(user.id, paid!)
		await db
			.insertInto('inboxes')
			.values({
				user_id: user.id,
				workspace_id: workspaceId,
				domain_id: withInbox!,
				provider: 'google',
				address: `${unique('ann')}@example.com`,
			})
			.execute()
		await expect(deleteDomain(account, paid!)).rejects.toThrow(
			/cannot be deleted: it has a live subscription/,
		)
		await expect(deleteDomain(account, withInbox!)).rejects.toBeInstanceOf(FormError)
		const result = await startAndRun(account, {
			action: 'delete',
			selection: { ids: [paid!, withInbox!, free!] },
		})
		expect(result).toMatchObject({ status: 'done', done: 1, skipped: 2 })
		expect(result.notes.map((n) => n.reason).sort()).toEqual([
			expect.stringMatching(/it has 1 active inbox; cancel/),
			expect.stringMatching(/it has a live subscription; cancel it first/),
		])
		expect(await existing([paid!, withInbox!, free!])).toEqual([paid!, withInbox!].sort())
	})

	test('cancelling domains without a subscription skips them with the reason', async () => {
		const { user, workspaceId, account } = await owner()
		const [paid, unpaid] = await domains(user.id, workspaceId, [unique('p'), unique('u')])
		await subscribe(user.id, paid!)
		const result = await startAndRun(account, {
			action: 'cancel',
			selection: { ids: [paid!, unpaid!] },
		})
		expect(result).toMatchObject({ done: 1, skipped: 1 })
		expect(result.notes[0]!.reason).toBe('it has no active subscription')
		const sub = await db
			.selectFrom('domain_subscriptions')
			.select('cancel_at_period_end')
			.where('domain_id', '=', paid!)
			.executeTakeFirstOrThrow()
		expect(sub.cancel_at_period_end).toBe(true)
	})
})

describe('once and resumable', () => {
	test('a double submit of the bulk form makes one status row and one job', async () => {
		const { user, workspaceId, account } = await owner()
		const ids = await domains(user.id, workspaceId, [unique('d1'), unique('d2')])
		const formData = new FormData()
		formData.set('idempotencyKey', newFormKey())
		formData.set('action', 'check-dns')
		for (const id of ids) formData.append('ids', id)
		const submit = () =>
			oncePerSubmission({ accountId: user.id, form: 'domains-bulk', formData }, (trx) =>
				startBulkAction(account, domainBulk, { action: 'check-dns', selection: { ids } }, trx),
			)
		const [first, second] = await Promise.all([submit(), submit()])
		expect(second.id).toBe(first.id)
		const rows = await db
			.selectFrom('bulk_actions')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()
		expect(rows).toHaveLength(1)
		const { rows: jobs } = await sql<{ n: string }>`
			select count(*) as n from pgboss.job where name = 'bulk-action' and data->>'bulkId' = ${first.id}`.execute(
			db,
		)
		expect(Number(jobs[0]!.n)).toBe(1)
	})

	test('a run stopped part way resumes from its checkpoint: each row once', async () => {
		const { user, workspaceId, account } = await owner()
		const target = await insertWorkspace(db, user.id, 'Target')
		const fresh = await loadAccountContext(db, user)
		const ids = await domains(
			user.id,
			workspaceId,
			Array.from({ length: 5 }, (_, i) => unique(`r${i}`)),
		)
		const runs: string[] = []
		const stop = new AbortController()
		// the same handler, counting each row it moves; the worker "dies" after the second row
		const counting: BulkHandler = {
			...domainBulk,
			actions: {
				move: {
					...domainBulk.actions.move!,
					async run(acting, row, params) {
						runs.push(row.id)
						const outcome = await domainBulk.actions.move!.run(acting, row, params)
						if (runs.length === 2) stop.abort()
						return outcome
					},
				},
			},
		}
		const started = await startBulkAction(fresh, domainBulk, {
			action: 'move',
			params: { workspaceId: target },
			selection: { ids },
		})
		await expect(runBulkAction(started.id, [counting], { signal: stop.signal })).rejects.toThrow()
		expect(await findBulkAction(fresh, started.id)).toMatchObject({ status: 'running', done: 2 })
		await runBulkAction(started.id, [counting])
		expect(await findBulkAction(account, started.id)).toMatchObject({
			status: 'done',
			done: 5,
			skipped: 0,
		})
		expect(runs.sort()).toEqual([...ids].sort())
	})
})

describe('through the worker', () => {
	let workers: Awaited<ReturnType<typeof startWorkers>>
	beforeAll(async () => {
		workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
	})
	afterAll(() => workers.stop())

	test('a started bulk action is run by its job to the end', async () => {
		const { user, workspaceId, account } = await owner()
		const ids = await domains(user.id, workspaceId, [unique('w1'), unique('w2')])
		const started = await startBulkAction(account, domainBulk, {
			action: 'delete',
			selection: { ids },
		})
		await expect
			.poll(async () => (await findBulkAction(account, started.id)).status, { timeout: 20_000 })
			.toBe('done')
		expect(await existing(ids)).toEqual([])
	})
})
