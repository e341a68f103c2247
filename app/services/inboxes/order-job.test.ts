import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertWorkspace } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { inboxOrderJob } from '../../jobs/definitions/inbox-order.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { listOrderQueue } from '../admin/inbox-orders.server.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import { importDomains } from '../domains/domains.server.ts'
import { startDomainSubscription } from '../domains/subscriptions.server.ts'
import { fulfilOrder } from './fulfilment.server.ts'
import { listInboxOrders, startInboxOrderCheckout } from './orders.server.ts'

// The inbox-order job end to end: a paid order, the real worker, the real database.
let workers: Workers
beforeAll(async () => {
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
})

async function owner(names: string[]) {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	const account = await loadAccountContext(db, user)
	await importDomains(account, { text: names.join('\n'), workspaceId })
	const domains = await db
		.selectFrom('domains')
		.select(['id', 'name'])
		.where('user_id', '=', user.id)
		.orderBy('name')
		.execute()
	for (const d of domains) {
		const checkout = await startDomainSubscription(account, d.id)
		await completeTestCheckout(account, checkout.id)
	}
	return { user, account, domains }
}

async function platformAdmin() {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role: 'admin' }).execute()
	return { user, account: await loadAccountContext(db, user) }
}

/** Opens and pays an order the way /ordering-inboxes and /checkout do. */
async function payOrder(
	account: AccountContext,
	domainIds: string[],
	options: { personas?: string; perDomain?: number; beforePaying?: () => Promise<void> } = {},
) {
	const checkout = await startInboxOrderCheckout(account, {
		domainIds,
		provider: 'google',
		inboxesPerDomain: options.perDomain ?? 2,
		personas: options.personas ?? 'Ada Lovelace\nGrace Hopper',
		patterns: ['first', 'first.last'],
	})
	await options.beforePaying?.()
	await completeTestCheckout(account, checkout.id)
	const order = await db
		.selectFrom('inbox_orders')
		.select('id')
		.where('checkout_session_id', '=', checkout.id)
		.executeTakeFirstOrThrow()
	return order.id
}

async function settled(orderId: string) {
	await expect
		.poll(
			async () => {
				const row = await db
					.selectFrom('inbox_orders')
					.select(['status', 'admins_notified_at', 'refunded_at'])
					.where('id', '=', orderId)
					.executeTakeFirstOrThrow()
				// failed: once its refund is recorded too
				return (
					(row.status === 3 && row.refunded_at !== null) ||
					(row.status === 1 && row.admins_notified_at !== null)
				)
			},
			{ timeout: 20_000, interval: 100 },
		)
		.toBe(true)
	return db
		.selectFrom('inbox_orders')
		.selectAll()
		.where('id', '=', orderId)
		.executeTakeFirstOrThrow()
}

async function mailsTo(email: string) {
	return db
		.selectFrom('mailbox')
		.select(['subject', 'text_body'])
		.where('to_address', '=', email)
		.execute()
}

const retry = (orderId: string) =>
	inboxOrderJob.handler(
		{ orderId },
		{ jobId: 'retry', retryCount: 1, signal: new AbortController().signal },
	)

describe('inbox-order job', () => {
	test('a paid order gets its addresses planned (none that exist), goes to processing, and admins are mailed once', async () => {
		const admin = await platformAdmin()
		const { user, account, domains } = await owner(['plan-a.com', 'plan-b.com'])
		const [a, b] = domains
		const orderId = await payOrder(account, [a!.id, b!.id], {
			// an inbox made at a after the quote: the plan goes round it
			beforePaying: async () => {
				await db
					.insertInto('inboxes')
					.values({
						user_id: user.id,
						domain_id: a!.id,
						provider: 'google',
						address: 'ada@plan-a.com',
						status: 'active',
					})
					.execute()
			},
		})
		const order = await settled(orderId)
		expect(order.status).toBe(1)
		expect(order.planned_inboxes).toEqual([
			{
				domainId: a!.id,
				domain: 'plan-a.com',
				address: 'grace@plan-a.com',
				firstName: 'Grace',
				lastName: 'Hopper',
			},
			{
				domainId: a!.id,
				domain: 'plan-a.com',
				address: 'ada.lovelace@plan-a.com',
				firstName: 'Ada',
				lastName: 'Lovelace',
			},
			{
				domainId: b!.id,
				domain: 'plan-b.com',
				address: 'ada@plan-b.com',
				firstName: 'Ada',
				lastName: 'Lovelace',
			},
			{
				domainId: b!.id,
				domain: 'plan-b.com',
				address: 'grace@plan-b.com',
				firstName: 'Grace',
				lastName: 'Hopper',
			},
		])
		const mails = await mailsTo(admin.user.email)
		expect(mails).toHaveLength(1)
		expect(mails[0]!.subject).toBe('Inbox order to set up: 4 Google Workspace inboxes')
		expect(mails[0]!.text_body).toContain('grace@plan-a.com (Grace Hopper)')
		expect(mails[0]!.text_body).toContain('/admin-dashboard/inbox-orders?status=processing')
		// the owner sees the addresses; so do admins on their screen
		const [mine] = await listInboxOrders(account)
		expect(mine!.planned).toEqual([
			'grace@plan-a.com',
			'ada.lovelace@plan-a.com',
			'ada@plan-b.com',
			'grace@plan-b.com',
		])
		const queue = await listOrderQueue(admin.account, 1)
		expect(queue.find((o) => o.id === orderId)!.planned).toHaveLength(4)

		// a retry (a crash after the work, before the queue heard of it) changes nothing
		await retry(orderId)
		const again = await db
			.selectFrom('inbox_orders')
			.selectAll()
			.where('id', '=', orderId)
			.executeTakeFirstOrThrow()
		expect(again.planned_at).toEqual(order.planned_at)
		expect(again.planned_inboxes).toEqual(order.planned_inboxes)
		expect(await mailsTo(admin.user.email)).toHaveLength(1)

		// and the admin still fulfils it from a CSV of credentials
		const header = 'email,first_name,last_name,password,smtp_host,smtp_port,imap_host,imap_port'
		const csv = [header]
			.concat(
				(mine!.planned as string[]).map(
					(address) => `${address},A,B,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`,
				),
			)
			.join('\n')
		expect(await fulfilOrder(admin.account, orderId, csv)).toMatchObject({
			inboxes: 4,
			complete: true,
		})
		await retry(orderId)
		expect(await mailsTo(admin.user.email)).toHaveLength(1)
	})

	test('resumes after a crash between planning and mailing: mails once, plans nothing again', async () => {
		const admin = await platformAdmin()
		const { account, domains } = await owner(['resume-a.com'])
		const orderId = await payOrder(account, [domains[0]!.id])
		const order = await settled(orderId)
		// as if the process died after the plan was committed, before the mail went out
		await db
			.updateTable('inbox_orders')
			.set({ admins_notified_at: null })
			.where('id', '=', orderId)
			.execute()
		await db.deleteFrom('mailbox').where('to_address', '=', admin.user.email).execute()
		await retry(orderId)
		const after = await db
			.selectFrom('inbox_orders')
			.selectAll()
			.where('id', '=', orderId)
			.executeTakeFirstOrThrow()
		expect(after.planned_at).toEqual(order.planned_at)
		expect(after.admins_notified_at).not.toBeNull()
		expect(await mailsTo(admin.user.email)).toHaveLength(1)
		await retry(orderId)
		expect(await mailsTo(admin.user.email)).toHaveLength(1)
	})

	test('two orders for one domain never plan the same address', async () => {
		await platformAdmin()
		const { account, domains } = await owner(['twice-a.com'])
		// the same names in another order: another purchase (the same order twice is one,
		// decision 0064), whose quote shows the same addresses as the first's
		const [first, second] = await Promise.all([
			payOrder(account, [domains[0]!.id]),
			payOrder(account, [domains[0]!.id], { personas: 'Grace Hopper\nAda Lovelace' }),
		])
		const planned = [await settled(first), await settled(second)].map((o) =>
			(o.planned_inboxes as { address: string }[]).map((p) => p.address),
		)
		expect(planned[0]).toHaveLength(2)
		expect(planned[1]).toHaveLength(2)
		expect(new Set([...planned[0]!, ...planned[1]!]).size).toBe(4)
	})

	test('an order whose domain lapsed before the job ran fails with a refund and a reason the owner sees', async () => {
		const admin = await platformAdmin()
		const { account, domains } = await owner(['lapse-a.com', 'lapse-b.com'])
		const [a, b] = domains
		const orderId = await payOrder(account, [a!.id, b!.id], {
			// paid after the domain's subscription ran out
			beforePaying: async () => {
				await db
					.updateTable('domain_subscriptions')
					.set({ expire_date: new Date(Date.now() - 1000) })
					.where('domain_id', '=', b!.id)
					.execute()
			},
		})
		const order = await settled(orderId)
		expect(order).toMatchObject({
			status: 3,
			refund_cents: 1200,
			planned_inboxes: null,
			admins_notified_at: null,
		})
		expect(order.refunded_at).toBeInstanceOf(Date)
		const [mine] = await listInboxOrders(account)
		expect(mine!.error).toBe(
			'lapse-b.com no longer has an active domain subscription, so the order was cancelled and refunded.',
		)
		expect(mine!.planned).toEqual([])
		expect(await mailsTo(admin.user.email)).toHaveLength(0)
		const audit = await db
			.selectFrom('audit_log')
			.select(['action', 'actor_user_id'])
			.where('target_id', '=', orderId)
			.orderBy('created_at')
			.execute()
		expect(audit).toEqual([
			{ action: 'inboxes.order.create', actor_user_id: account.user.id },
			{ action: 'inboxes.order.fail', actor_user_id: null },
			{ action: 'inboxes.order.refund', actor_user_id: null },
		])
		// a retry does not fail or refund again
		await retry(orderId)
		expect(
			await db
				.selectFrom('audit_log')
				.select('id')
				.where('target_id', '=', orderId)
				.where('action', 'in', ['inboxes.order.fail', 'inboxes.order.refund'])
				.execute(),
		).toHaveLength(2)
	})

	test('not enough free addresses left: the order fails with a refund', async () => {
		await platformAdmin()
		const { user, account, domains } = await owner(['full-a.com'])
		const orderId = await payOrder(account, [domains[0]!.id], {
			personas: 'Ada Lovelace',
			perDomain: 2,
			// the addresses were taken between the quote and the payment
			beforePaying: async () => {
				await db
					.insertInto('inboxes')
					.values({
						user_id: user.id,
						domain_id: domains[0]!.id,
						provider: 'google',
						address: 'ada@full-a.com',
						status: 'active',
					})
					.execute()
			},
		})
		const order = await settled(orderId)
		expect(order.status).toBe(3)
		expect(order.error).toMatch(/full-a\.com has 1 free addresses .* needs 2/)
	})
})
