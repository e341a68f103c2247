import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import {
	auditOf,
	deliver,
	ownerWithDomains,
	runRenewalJob,
	stopUsingStripe,
	uniqueName,
	useStripe,
} from '../../../tests/support/recurring.ts'
import { outcomeOf } from '../../../tests/support/team.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { completeTestCheckout } from '../billing/checkout.server.ts'
import { addMonths } from '../billing/dates.ts'
import { failOrder, fulfilOrder } from './fulfilment.server.ts'
import { exportInboxesCsv, listInboxes, setInboxCancel } from './inboxes.server.ts'
import { startInboxOrderCheckout } from './orders.server.ts'

// Monthly inbox billing (decision 0013): an order is one recurring charge (a Stripe subscription
// with a quantity, or test mode's renewal by the job); each inbox has a period end; a cancelled
// inbox ends at it, run by the subscription-renewal job through pg-boss.

let workers: Workers

beforeAll(async () => {
	workers = await startWorkers({ concurrency: 1, drainSeconds: 5 })
})

afterAll(async () => {
	await workers.stop()
})

const HEADER = 'email,first_name,last_name,password,smtp_host,smtp_port,imap_host,imap_port'

async function adminAccount() {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role: 'admin' }).execute()
	return loadAccountContext(db, user)
}

/** An owner with one domain whose subscription is live (as a paid checkout leaves it). */
async function ownerWithSubscribedDomain() {
	const owner = await ownerWithDomains([uniqueName('inbox')])
	const domain = owner.domains[0]!
	await db
		.insertInto('domain_subscriptions')
		.values({
			user_id: owner.user.id,
			domain_id: domain.id,
			status: 'active',
			price_cents: 1500,
			billing_date: new Date(),
			expire_date: addMonths(new Date(), 1),
		})
		.execute()
	return { ...owner, domain }
}

const PEOPLE = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']

function order(domainId: string, inboxes: number) {
	return {
		domainIds: [domainId],
		provider: 'google',
		inboxesPerDomain: inboxes,
		personas: PEOPLE.slice(0, inboxes).join('\n'),
		patterns: ['first'],
	}
}

async function orderOf(accountId: string) {
	return db
		.selectFrom('inbox_orders')
		.selectAll()
		.where('user_id', '=', accountId)
		.orderBy('created_at', 'desc')
		.executeTakeFirstOrThrow()
}

async function inboxOf(address: string) {
	return db
		.selectFrom('inboxes')
		.selectAll()
		.where('address', '=', address)
		.executeTakeFirstOrThrow()
}

/** An admin fulfils the order with one inbox per persona (first-name addresses). */
async function fulfil(orderId: string, domain: string, inboxes: number) {
	const rows = PEOPLE.slice(0, inboxes).map((p) => {
		const [first, last] = p.split(' ')
		return `${first!.toLowerCase()}@${domain},${first},${last},s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
	})
	await fulfilOrder(await adminAccount(), orderId, [HEADER, ...rows].join('\n'))
	return PEOPLE.slice(0, inboxes).map((p) => `${p.split(' ')[0]!.toLowerCase()}@${domain}`)
}

describe('with Stripe', () => {
	let fake: FakeStripe

	beforeAll(async () => {
		fake = await startFakeStripe()
		useStripe(fake)
	})

	afterAll(async () => {
		stopUsingStripe()
		await fake.close()
	})

	/** Orders `inboxes` inboxes through Stripe Checkout and the webhook. */
	async function orderedWithStripe(inboxes: number) {
		const owner = await ownerWithSubscribedDomain()
		const checkout = await startInboxOrderCheckout(owner.account, order(owner.domain.id, inboxes))
		const session = fake.sessions.get(checkout.url.split('/').pop()!)!
		const paid = fake.paySession(session.id)
		expect(
			(await deliver(fake, fake.event('checkout.session.completed', paid.session))).status,
		).toBe(200)
		return { ...owner, session, stripeSub: paid.subscription!, order: await orderOf(owner.user.id) }
	}

	test('a monthly Stripe subscription, one unit per inbox; renewals move every live inbox on', async () => {
		const { account, user, domain, session, stripeSub, order } = await orderedWithStripe(2)
		expect(session).toMatchObject({ mode: 'subscription', amount_total: 600 })
		expect(session.__items[0]).toMatchObject({
			quantity: 2,
			price: { unit_amount: 300, recurring: { interval: 'month' } },
		})
		const firstEnd = new Date(stripeSub.items.data[0].current_period_end * 1000)
		expect(order).toMatchObject({
			status: 0,
			billing_status: 'active',
			billing_provider: 'stripe',
			provider_subscription_id: stripeSub.id,
			price_cents: 300,
			quantity: 2,
			paid_through: firstEnd,
		})
		const [ada, grace] = await fulfil(order.id, domain.name, 2)
		expect((await inboxOf(ada!)).period_end).toEqual(firstEnd)

		const renewed = fake.renew(stripeSub.id)
		const secondEnd = new Date(renewed.subscription.items.data[0].current_period_end * 1000)
		const event = fake.event('invoice.paid', renewed.invoice)
		await deliver(fake, event)
		await deliver(fake, event)
		await deliver(fake, fake.event('invoice.paid', renewed.invoice))
		expect(await orderOf(user.id)).toMatchObject({
			paid_through: secondEnd,
			billing_status: 'active',
		})
		expect((await inboxOf(ada!)).period_end).toEqual(secondEnd)
		expect((await inboxOf(grace!)).period_end).toEqual(secondEnd)
		expect(await auditOf(order.id, 'inboxes.billing.renew')).toHaveLength(1)

		// cancelling an inbox bills one less from the next month (this one is paid), resuming one more
		const adaId = (await inboxOf(ada!)).id
		await setInboxCancel(account, adaId, true)
		expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(1)
		expect((await orderOf(user.id)).quantity).toBe(1)
		await setInboxCancel(account, adaId, false)
		expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(2)
		await setInboxCancel(account, adaId, true)
		expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(1)
		expect(
			(await listInboxes(account, { status: 'cancelling' })).map((i) => [i.address, i.period_end]),
		).toEqual([[ada, secondEnd]])

		// the next renewal carries Grace on, not Ada
		const third = fake.renew(stripeSub.id)
		const thirdEnd = new Date(third.subscription.items.data[0].current_period_end * 1000)
		await deliver(fake, fake.event('invoice.paid', third.invoice))
		expect((await inboxOf(grace!)).period_end).toEqual(thirdEnd)
		expect((await inboxOf(ada!)).period_end).toEqual(secondEnd)

		// Ada's period is over: the job ends her
		await db
			.updateTable('inboxes')
			.set({ period_end: new Date(Date.now() - 60_000) })
			.where('id', '=', adaId)
			.execute()
		await runRenewalJob()
		const ended = await inboxOf(ada!)
		expect(ended).toMatchObject({ status: 'cancelled' })
		expect(ended.ended_at).toBeInstanceOf(Date)
		expect((await listInboxes(account, { status: 'cancelled' })).map((i) => i.address)).toEqual([
			ada,
		])
		const csv = await exportInboxesCsv(account)
		expect(csv).toContain(grace)
		expect(csv).not.toContain(ada)
		expect(await outcomeOf(() => setInboxCancel(account, adaId, false))).toBe('form')
		// nothing changed in Stripe by the job: the quantity was already right
		expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(1)

		// another account's inbox ids are 404
		const stranger = await ownerWithDomains([])
		const graceId = (await inboxOf(grace!)).id
		for (const cancel of [true, false]) {
			expect(await outcomeOf(() => setInboxCancel(stranger.account, graceId, cancel))).toBe(404)
		}
	})

	test('every inbox cancelled: Stripe ends the subscription at period end; .deleted stops billing', async () => {
		const { account, user, domain, stripeSub, order } = await orderedWithStripe(1)
		const [ada] = await fulfil(order.id, domain.name, 1)
		const adaId = (await inboxOf(ada!)).id
		await setInboxCancel(account, adaId, true)
		expect(fake.subscriptions.get(stripeSub.id)!.cancel_at_period_end).toBe(true)
		await setInboxCancel(account, adaId, false)
		expect(fake.subscriptions.get(stripeSub.id)!.cancel_at_period_end).toBe(false)
		await setInboxCancel(account, adaId, true)

		const remote = structuredClone(fake.subscriptions.get(stripeSub.id)!)
		await deliver(fake, fake.event('customer.subscription.updated', remote))
		remote.status = 'canceled'
		await deliver(fake, fake.event('customer.subscription.deleted', remote))
		expect(await orderOf(user.id)).toMatchObject({ billing_status: 'canceled', quantity: 0 })
		expect(await inboxOf(ada!)).toMatchObject({ status: 'active', cancel_at_period_end: true })
		expect(await outcomeOf(() => setInboxCancel(account, adaId, false))).toBe('form')
	})

	test('a failed payment is past due; the order’s inboxes keep their period', async () => {
		const { user, stripeSub, order } = await orderedWithStripe(1)
		const renewed = fake.renew(stripeSub.id)
		const failed = fake.invoiceFor(renewed.subscription, 'subscription_cycle', 'open')
		await deliver(fake, fake.event('invoice.payment_failed', failed))
		expect((await orderOf(user.id)).billing_status).toBe('past_due')
		expect((await orderOf(user.id)).paid_through).toEqual(order.paid_through)
		await deliver(
			fake,
			fake.event('invoice.paid', fake.invoiceFor(renewed.subscription, 'subscription_cycle')),
		)
		expect((await orderOf(user.id)).billing_status).toBe('active')
	})

	test('fulfilled with fewer inboxes than ordered: the job bills only those from next month', async () => {
		const { user, domain, stripeSub, order } = await orderedWithStripe(2)
		await fulfil(order.id, domain.name, 1)
		expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(2)
		await runRenewalJob()
		expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(1)
		expect((await orderOf(user.id)).quantity).toBe(1)
	})

	test('a failed order: its paid invoice is refunded and the subscription cancelled', async () => {
		const { user, stripeSub, order } = await orderedWithStripe(2)
		const invoiceId = fake.subscriptions.get(stripeSub.id)!.latest_invoice
		await failOrder(await adminAccount(), order.id, 'The provider refused the domain')
		expect(fake.refunds).toContainEqual(
			expect.objectContaining({ payment_intent: fake.invoices.get(invoiceId)!.__payment_intent }),
		)
		expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('canceled')
		expect(await orderOf(user.id)).toMatchObject({
			status: 3,
			billing_status: 'canceled',
			quantity: 0,
		})
	})
})

describe('test mode: the renewal job', () => {
	async function orderedInTestMode(inboxes: number) {
		const owner = await ownerWithSubscribedDomain()
		const checkout = await startInboxOrderCheckout(owner.account, order(owner.domain.id, inboxes))
		expect(checkout.provider).toBe('test')
		await completeTestCheckout(owner.account, checkout.id)
		const paid = await orderOf(owner.user.id)
		expect(paid).toMatchObject({ billing_provider: 'test', quantity: inboxes, price_cents: 300 })
		const addresses = await fulfil(paid.id, owner.domain.name, inboxes)
		return { ...owner, order: paid, addresses }
	}

	/** The billing clock: the order's month (and its inboxes' period) ended a minute ago. */
	async function monthOver(orderId: string) {
		const end = new Date(Date.now() - 60_000)
		await db
			.updateTable('inbox_orders')
			.set({ paid_through: end, billing_date: addMonths(end, -1) })
			.where('id', '=', orderId)
			.execute()
		await db
			.updateTable('inboxes')
			.set({ period_end: end })
			.where('order_id', '=', orderId)
			.execute()
		return end
	}

	async function cancel(account: AccountContext, address: string, value = true) {
		await setInboxCancel(account, (await inboxOf(address)).id, value)
	}

	test('renews the order for its live inboxes; the cancelled one ends on its date', async () => {
		const { account, user, order, addresses } = await orderedInTestMode(2)
		const [ada, grace] = addresses as [string, string]
		expect((await inboxOf(ada)).period_end).toEqual(order.paid_through)
		await cancel(account, ada)
		expect((await orderOf(user.id)).quantity).toBe(1)
		const end = await monthOver(order.id)

		await runRenewalJob()

		expect(await inboxOf(ada)).toMatchObject({ status: 'cancelled', period_end: end })
		expect(await inboxOf(grace)).toMatchObject({ status: 'active', period_end: addMonths(end, 1) })
		expect(await orderOf(user.id)).toMatchObject({
			billing_status: 'active',
			quantity: 1,
			paid_through: addMonths(end, 1),
		})
		const charges = await auditOf(order.id, 'inboxes.billing.renew')
		expect(charges.map((c) => c.after)).toEqual([
			expect.objectContaining({ provider: 'test', quantity: 1, amount_cents: 300 }),
		])
		const csv = await exportInboxesCsv(account)
		expect(csv).toContain(grace)
		expect(csv).not.toContain(ada)

		// again: nothing more
		await runRenewalJob()
		expect(await auditOf(order.id, 'inboxes.billing.renew')).toHaveLength(1)
	})

	test('resumed before the period ends, an inbox renews with the order', async () => {
		const { account, user, order, addresses } = await orderedInTestMode(1)
		await cancel(account, addresses[0]!)
		await cancel(account, addresses[0]!, false)
		expect((await orderOf(user.id)).quantity).toBe(1)
		const end = await monthOver(order.id)
		await runRenewalJob()
		expect(await inboxOf(addresses[0]!)).toMatchObject({
			status: 'active',
			period_end: addMonths(end, 1),
		})
	})

	test('an order whose inboxes are all cancelled ends and charges nothing more', async () => {
		const { account, user, order, addresses } = await orderedInTestMode(1)
		await cancel(account, addresses[0]!)
		await monthOver(order.id)
		await runRenewalJob()
		expect(await inboxOf(addresses[0]!)).toMatchObject({ status: 'cancelled' })
		expect(await orderOf(user.id)).toMatchObject({ billing_status: 'ended', quantity: 0 })
		expect(await auditOf(order.id, 'inboxes.billing.renew')).toHaveLength(0)
	})
})
