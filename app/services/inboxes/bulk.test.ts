import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertWorkspace } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import {
	findBulkAction,
	NOT_YOURS,
	runBulkAction,
	startBulkAction,
} from '../bulk/bulk-actions.server.ts'
import { importDomains } from '../domains/domains.server.ts'
import { startDomainSubscription } from '../domains/subscriptions.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { inboxOrderBulk } from './bulk.server.ts'
import { startOrder } from './fulfilment.server.ts'
import { listInboxOrders, startInboxOrderCheckout } from './orders.server.ts'

// Issue 34: inbox orders are cancelled in bulk only while they wait for setup, with the refund
// the single cancel makes; the others are skipped with why, another account's never touched.

async function customer() {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	const account = await loadAccountContext(db, user)
	const name = `o${user.id.slice(0, 8)}.com`
	await importDomains(account, { text: name, workspaceId })
	const domain = await db
		.selectFrom('domains')
		.select('id')
		.where('user_id', '=', user.id)
		.executeTakeFirstOrThrow()
	const checkout = await startDomainSubscription(account, domain.id)
	await completeTestCheckout(account, checkout.id)
	return { user, account, domainId: domain.id }
}

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra']
let ordered = 0

/** A paid (test mode) order of one domain, waiting for setup (other names each: not a repeat). */
async function order(account: AccountContext, domainId: string) {
	const checkout = await startInboxOrderCheckout(account, {
		domainIds: [domainId],
		provider: 'google',
		inboxesPerDomain: 1,
		personas: NAMES[ordered++ % NAMES.length]!,
		patterns: ['first.last'],
	})
	await completeTestCheckout(account, checkout.id)
	const [newest] = await listInboxOrders(account)
	return newest!.id
}

async function adminAccount() {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role: 'admin' }).execute()
	return loadAccountContext(db, user)
}

async function orderState(id: string) {
	return db
		.selectFrom('inbox_orders')
		.select(['status', 'refunded_at', 'refund_cents', 'error'])
		.where('id', '=', id)
		.executeTakeFirstOrThrow()
}

describe('bulk cancel of inbox orders', () => {
	test('waiting orders are cancelled and refunded; started ones skipped with why; theirs untouched', async () => {
		const me = await customer()
		const them = await customer()
		const waiting = await order(me.account, me.domainId)
		const started = await order(me.account, me.domainId)
		const theirs = await order(them.account, them.domainId)
		await startOrder(await adminAccount(), started)
		const bulk = await startBulkAction(me.account, inboxOrderBulk, {
			action: 'cancel',
			selection: { ids: [waiting, started, theirs] },
		})
		await runBulkAction(bulk.id, [inboxOrderBulk])
		const result = await findBulkAction(me.account, bulk.id)
		expect(result).toMatchObject({ status: 'done', total: 3, done: 1, skipped: 2, failed: 0 })
		expect(result.notes.map((n) => n.reason).sort()).toEqual(
			[NOT_YOURS, 'its setup has started; ask us to cancel it'].sort(),
		)
		const cancelled = await orderState(waiting)
		expect(cancelled.status).toBe(3)
		expect(cancelled.refunded_at).toBeInstanceOf(Date)
		expect(cancelled.refund_cents).toBeGreaterThan(0)
		expect(cancelled.error).toBe('Cancelled at your request.')
		expect((await orderState(started)).status).toBe(1)
		expect(await orderState(theirs)).toMatchObject({ status: 0, refunded_at: null })
	})

	test('a second cancel of the same order is skipped, not refunded twice', async () => {
		const me = await customer()
		const id = await order(me.account, me.domainId)
		for (const expected of [
			{ done: 1, skipped: 0 },
			{ done: 0, skipped: 1 },
		]) {
			const bulk = await startBulkAction(me.account, inboxOrderBulk, {
				action: 'cancel',
				selection: { ids: [id] },
			})
			await runBulkAction(bulk.id, [inboxOrderBulk])
			expect(await findBulkAction(me.account, bulk.id)).toMatchObject(expected)
		}
		const audit = await db
			.selectFrom('audit_log')
			.select('action')
			.where('target_id', '=', id)
			.where('action', '=', 'inboxes.order.refund')
			.execute()
		expect(audit).toHaveLength(1)
	})

	test('all matching: every waiting order of the account, none of another', async () => {
		const me = await customer()
		const them = await customer()
		const mine = [await order(me.account, me.domainId), await order(me.account, me.domainId)]
		const theirs = await order(them.account, them.domainId)
		const bulk = await startBulkAction(me.account, inboxOrderBulk, {
			action: 'cancel',
			selection: { filter: {} },
		})
		expect(bulk.total).toBe(2)
		await runBulkAction(bulk.id, [inboxOrderBulk])
		expect(await findBulkAction(me.account, bulk.id)).toMatchObject({ done: 2, skipped: 0 })
		for (const id of mine) expect((await orderState(id)).status).toBe(3)
		expect((await orderState(theirs)).status).toBe(0)
	})

	test('a double submit starts one bulk action and one job', async () => {
		const me = await customer()
		const ids = [await order(me.account, me.domainId)]
		const formData = new FormData()
		formData.set('idempotencyKey', newFormKey())
		formData.set('action', 'cancel')
		for (const id of ids) formData.append('ids', id)
		const submit = () =>
			oncePerSubmission({ accountId: me.user.id, form: 'inbox-orders-bulk', formData }, (trx) =>
				startBulkAction(me.account, inboxOrderBulk, { action: 'cancel', selection: { ids } }, trx),
			)
		const [first, second] = await Promise.all([submit(), submit()])
		expect(second.id).toBe(first.id)
		const rows = await db
			.selectFrom('bulk_actions')
			.select('id')
			.where('user_id', '=', me.user.id)
			.execute()
		expect(rows).toHaveLength(1)
		const { rows: jobs } = await sql<{ n: string }>`
			select count(*) as n from pgboss.job where name = 'bulk-action' and data->>'bulkId' = ${first.id}`.execute(
			db,
		)
		expect(Number(jobs[0]!.n)).toBe(1)
	})
})
