import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import {
	auditOf,
	deliver,
	ownerWithDomains,
	postForm,
	runRenewalJob,
	stopUsingStripe,
	uniqueName,
	useStripe,
} from '../../../tests/support/recurring.ts'
import { outcomeOf } from '../../../tests/support/team.ts'
import { getStripe } from '../../integrations/stripe.server.ts'
import { action as inboxesAction } from '../../routes/inboxes.tsx'
import { FormError } from '../../utils/http-errors.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import { addMonths } from '../billing/dates.ts'
import { failOrder, fulfilOrder } from './fulfilment.server.ts'
import { exportInboxesCsv, listInboxes, setInboxCancel } from './inboxes.server.ts'
import { processInboxOrder } from './order-job.server.ts'
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
		expect(order).toMatchObject({
			status: 0,
			billing_status: 'active',
			billing_provider: 'stripe',
			provider_subscription_id: stripeSub.id,
			price_cents: 300,
			quantity: 2,
			paid_through: new Date(stripeSub.items.data[0].current_period_end * 1000),
		})
		// the paid month starts at delivery: Stripe charges next a month after it
		const [ada, grace] = await fulfil(order.id, domain.name, 2)
		const firstEnd = (await orderOf(user.id)).paid_through!
		expect(fake.subscriptions.get(stripeSub.id)!.trial_end * 1000).toBe(firstEnd.getTime())
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

	/**
	 * The billing clock: the subscription's first month (paid at checkout) ends in `ms`, in
	 * Stripe and in our records, as the webhook left them.
	 */
	async function firstMonthEndsIn(orderId: string, subscriptionId: string, ms: number) {
		const end = Math.floor((Date.now() + ms) / 1000)
		const item = fake.subscriptions.get(subscriptionId)!.items.data[0]
		item.current_period_start = Math.floor(addMonths(new Date(end * 1000), -1).getTime() / 1000)
		item.current_period_end = end
		await db
			.updateTable('inbox_orders')
			.set({ paid_through: new Date(end * 1000) })
			.where('id', '=', orderId)
			.execute()
		return new Date(end * 1000)
	}

	test('an order still waiting for an admin at its first renewal is not charged again; delivery starts the month', async () => {
		const { user, domain, stripeSub, order } = await orderedWithStripe(2)
		await plannedByJob(order.id)
		const invoicesBefore = fake.invoices.size
		const firstEnd = await firstMonthEndsIn(order.id, stripeSub.id, 60 * 60_000)

		// an hour before Stripe would renew it, the job moves the next charge a month on
		await runRenewalJob()
		const deferredTo = addMonths(firstEnd, 1)
		let remote = fake.subscriptions.get(stripeSub.id)!
		expect(remote).toMatchObject({ status: 'trialing', trial_end: deferredTo.getTime() / 1000 })
		expect(remote.items.data[0].current_period_end * 1000).toBe(deferredTo.getTime())
		const trial = fake.invoices.get(remote.latest_invoice)!
		// nothing charged, nothing credited for the month paid at checkout
		expect(trial).toMatchObject({ billing_reason: 'subscription_update', total: 0, amount_paid: 0 })
		expect(fake.invoices.size).toBe(invoicesBefore + 1)
		expect(await orderOf(user.id)).toMatchObject({ status: 1, paid_through: deferredTo })
		expect(await auditOf(order.id, 'inboxes.billing.defer')).toHaveLength(1)
		const deferral = [
			fake.event('customer.subscription.updated', remote),
			fake.event('invoice.paid', trial),
		]
		for (const event of deferral) await deliver(fake, event)
		expect((await orderOf(user.id)).paid_through).toEqual(deferredTo)
		// the next run has nothing to move
		await runRenewalJob()
		expect(await auditOf(order.id, 'inboxes.billing.defer')).toHaveLength(1)

		// delivered: the paid month runs from now, and Stripe charges next a month from now
		const before = new Date(Math.floor(Date.now() / 1000) * 1000)
		const [ada] = await fulfil(order.id, domain.name, 2)
		const after = new Date()
		const delivered = await orderOf(user.id)
		const paidThrough = delivered.paid_through!
		expect(paidThrough >= addMonths(before, 1) && paidThrough <= addMonths(after, 1)).toBe(true)
		expect(delivered.billing_date!.getTime()).toBe(addMonths(paidThrough, -1).getTime())
		expect((await inboxOf(ada!)).period_end).toEqual(paidThrough)
		remote = fake.subscriptions.get(stripeSub.id)!
		expect(remote.trial_end * 1000).toBe(paidThrough.getTime())
		expect(remote.items.data[0].current_period_end * 1000).toBe(paidThrough.getTime())
		expect(fake.invoices.get(remote.latest_invoice)).toMatchObject({ total: 0, amount_paid: 0 })
		expect(await auditOf(order.id, 'inboxes.billing.start')).toHaveLength(1)

		// the deferral's events, arriving late, do not move the month delivery started
		for (const event of deferral)
			await deliver(fake, structuredClone({ ...event, id: `${event.id}_late` }))
		expect((await orderOf(user.id)).paid_through).toEqual(paidThrough)

		// Stripe's first renewal is then the month after delivery, for both inboxes
		const renewed = fake.renew(stripeSub.id)
		expect(renewed.invoice).toMatchObject({ amount_paid: 600 })
		expect(renewed.invoice.lines.data[0].period.start * 1000).toBe(paidThrough.getTime())
		await deliver(fake, fake.event('invoice.paid', renewed.invoice))
		const secondEnd = new Date(renewed.subscription.items.data[0].current_period_end * 1000)
		expect(await orderOf(user.id)).toMatchObject({
			paid_through: secondEnd,
			billing_status: 'active',
		})
		expect((await inboxOf(ada!)).period_end).toEqual(secondEnd)
	})

	test('delivery while Stripe does not answer changes nothing; the retry starts the month', async () => {
		const { user, domain, stripeSub, order } = await orderedWithStripe(1)
		await plannedByJob(order.id)
		fake.failNext(2)
		const csv = `${HEADER}\nada@${domain.name},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
		const error = await failure(fulfilOrder(await adminAccount(), order.id, csv))
		expect((error as FormError).message).toBe(
			'The payment provider did not answer. Nothing was changed; try again.',
		)
		expect(await orderOf(user.id)).toMatchObject({ status: 1, paid_through: order.paid_through })
		expect(
			await db.selectFrom('inboxes').select('id').where('order_id', '=', order.id).execute(),
		).toEqual([])
		expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('active')
		await fulfilOrder(await adminAccount(), order.id, csv)
		const delivered = await orderOf(user.id)
		expect(delivered.status).toBe(2)
		expect(fake.subscriptions.get(stripeSub.id)!.trial_end * 1000).toBe(
			delivered.paid_through!.getTime(),
		)
	})

	test('an order failed after its next charge moved: the checkout’s payment is refunded', async () => {
		const { user, stripeSub, order } = await orderedWithStripe(1)
		await plannedByJob(order.id)
		await firstMonthEndsIn(order.id, stripeSub.id, 60 * 60_000)
		await runRenewalJob()
		expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('trialing')
		await failOrder(await adminAccount(), order.id, 'The provider refused the domain')
		expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(1)
		expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('canceled')
		expect((await orderOf(user.id)).refund_cents).toBe(300)
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

	test('part of an order delivered: it stays open and its paid month waits for the rest (decision 0028)', async () => {
		const { user, domain, stripeSub, order } = await orderedWithStripe(2)
		const before = fake.subscriptions.get(stripeSub.id)!.status
		await fulfil(order.id, domain.name, 1)
		// not delivered: Stripe's next charge has not moved, the order is not fulfilled
		expect(fake.subscriptions.get(stripeSub.id)!.status).toBe(before)
		expect(await orderOf(user.id)).toMatchObject({ status: 1, fulfilled_at: null, quantity: 2 })
		// the rest: delivered, and the month paid at checkout starts now for both inboxes
		const csv = `${HEADER}\nzed@${domain.name},Zed,Last,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
		await fulfilOrder(await adminAccount(), order.id, csv)
		expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('trialing')
		const done = await orderOf(user.id)
		expect(done).toMatchObject({ status: 2, quantity: 2 })
		const periods = await db
			.selectFrom('inboxes')
			.select('period_end')
			.where('order_id', '=', order.id)
			.execute()
		expect(periods.map((p) => p.period_end?.getTime())).toEqual([
			done.paid_through!.getTime(),
			done.paid_through!.getTime(),
		])
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

	/** The payment Stripe refunds: the checkout's, on the subscription's first invoice. */
	const paymentOf = (subscriptionId: string) =>
		[...fake.invoices.values()].find(
			(i) =>
				i.parent.subscription_details.subscription === subscriptionId &&
				i.billing_reason === 'subscription_create',
		)!.__payment_intent as string
	const refundsOf = (paymentIntent: string) =>
		fake.refunds.filter((r) => r.payment_intent === paymentIntent)

	test('an admin fails the order while another fulfils it: one wins, the other is told why, one refund at most', async () => {
		const admin = await adminAccount()
		for (const first of ['fulfil', 'fail'] as const) {
			const { domain, stripeSub, order } = await orderedWithStripe(1)
			await plannedByJob(order.id)
			const csv = `${HEADER}\nada@${domain.name},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
			const fulfil = () => fulfilOrder(admin, order.id, csv)
			const fail = () => failOrder(admin, order.id, 'The provider refused the domain')
			// both press their button while a third change holds the order: they queue up in order
			const release = await holdOrderLock(order.id)
			const winner = failure(first === 'fulfil' ? fulfil() : fail())
			await waitingForOrderLock(1)
			const loser = failure(first === 'fulfil' ? fail() : fulfil())
			await waitingForOrderLock(2)
			await release()

			expect(await winner).toBeNull()
			const error = await loser
			expect(error).toBeInstanceOf(FormError)
			expect((error as FormError).message).toBe(
				first === 'fulfil'
					? 'This order was fulfilled, so it cannot be failed.'
					: 'This order was failed, so it cannot be fulfilled.',
			)
			const after = await orderById(order.id)
			const inboxes = await db
				.selectFrom('inboxes')
				.select('address')
				.where('order_id', '=', order.id)
				.execute()
			if (first === 'fulfil') {
				expect(after).toMatchObject({ status: 2, refunded_at: null, billing_status: 'active' })
				expect(inboxes).toHaveLength(1)
				expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(0)
				// delivered: its next charge moved to a month from now (a trial until then)
				expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('trialing')
			} else {
				expect(after).toMatchObject({ status: 3, refund_cents: 300, billing_status: 'canceled' })
				expect(after.refunded_at).toBeInstanceOf(Date)
				expect(inboxes).toHaveLength(0)
				expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(1)
				expect(fake.subscriptions.get(stripeSub.id)!.status).toBe('canceled')
			}
		}
	})

	test('a crash between claiming the order for failure and its refund: the retry refunds once', async () => {
		const admin = await adminAccount()
		const { domain, stripeSub, order } = await orderedWithStripe(1)
		await plannedByJob(order.id)
		// Stripe refunds, but neither the answer nor the SDK's retry's answer arrives
		fake.loseNext('POST /v1/refunds', 2)
		const error = await failure(failOrder(admin, order.id, 'The provider refused the domain'))
		expect((error as FormError).message).toBe(
			'The order is failed, but the payment provider did not confirm its refund. Try again to refund it.',
		)
		expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(1)
		expect(await orderById(order.id)).toMatchObject({
			status: 3,
			refunded_at: null,
			billing_status: 'canceled',
			error: 'The provider refused the domain',
		})
		// claimed for failure: nobody fulfils it now
		const csv = `${HEADER}\nada@${domain.name},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
		expect(((await failure(fulfilOrder(admin, order.id, csv))) as FormError).message).toBe(
			'This order was failed, so it cannot be fulfilled.',
		)

		// the inbox-order job's run finishes the refund; Stripe refunds nothing more. A run that
		// does not hear back from Stripe fails, so pg-boss retries it
		fake.loseNext('POST /v1/refunds', 2)
		await expect(processInboxOrder(order.id)).rejects.toThrow(/did not confirm its refund/)
		expect((await orderById(order.id)).refunded_at).toBeNull()
		await processInboxOrder(order.id)
		const failed = await orderById(order.id)
		expect(failed).toMatchObject({ status: 3, refund_cents: 300 })
		expect(failed.refunded_at).toBeInstanceOf(Date)
		expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(1)
		expect(await auditOf(order.id, 'inboxes.order.fail')).toHaveLength(1)
		expect(await auditOf(order.id, 'inboxes.order.refund')).toHaveLength(1)
		expect(((await failure(failOrder(admin, order.id, 'again'))) as FormError).message).toBe(
			'This order is already failed and refunded.',
		)
		await processInboxOrder(order.id)
		expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(1)
		expect(await auditOf(order.id, 'inboxes.order.refund')).toHaveLength(1)
	})

	test('an admin retries a refund Stripe did not answer; one refunded by hand counts', async () => {
		const admin = await adminAccount()
		const { stripeSub, order } = await orderedWithStripe(1)
		await plannedByJob(order.id)
		fake.failNext(2)
		expect(
			((await failure(failOrder(admin, order.id, 'Out of stock'))) as FormError).message,
		).toMatch(/did not confirm its refund/)
		// refunded in Stripe's dashboard meanwhile (or the idempotency key has expired)
		await (await getStripe()).refunds.create({ payment_intent: paymentOf(stripeSub.id) })
		await failOrder(admin, order.id, 'Retry the refund')
		const failed = await orderById(order.id)
		expect(failed).toMatchObject({ status: 3, error: 'Out of stock', refund_cents: 300 })
		expect(failed.refunded_at).toBeInstanceOf(Date)
		expect(refundsOf(paymentOf(stripeSub.id))).toHaveLength(1)
	})

	test('with Stripe not configured, cancelling an inbox or failing its order changes nothing and says why', async () => {
		const { account, domain, stripeSub, order } = await orderedWithStripe(1)
		await plannedByJob(order.id)
		const [ada] = await fulfil(order.id, domain.name, 1)
		const inbox = await inboxOf(ada!)
		const open = await orderedWithStripe(1)
		await plannedByJob(open.order.id)
		stopUsingStripe()
		try {
			const page = await postForm(inboxesAction, account, '/inboxes', {
				intent: 'cancel',
				id: inbox.id,
			})
			expect(page).toMatchObject({
				status: 302,
				location: '/inboxes',
				toast: {
					type: 'error',
					message:
						'This inbox is billed through Stripe, which this server is not connected to right now. Nothing was changed; try again later or contact support.',
				},
			})
			expect(await inboxOf(ada!)).toMatchObject({ cancel_at_period_end: false })
			expect(await orderById(order.id)).toMatchObject({ quantity: 1, billing_status: 'active' })
			expect(fake.subscriptions.get(stripeSub.id)!.items.data[0].quantity).toBe(1)
			expect(await auditOf(inbox.id, 'inboxes.inbox.cancel_at_period_end')).toHaveLength(0)

			// an open order paid through Stripe cannot be failed (and refunded) either
			const error = await failure(failOrder(await adminAccount(), open.order.id, 'Out of stock'))
			expect((error as FormError).message).toBe(
				'This order was paid through Stripe, which this server is not connected to right now, so it cannot be refunded. Nothing was changed.',
			)
			expect(await orderById(open.order.id)).toMatchObject({ status: 1, billing_status: 'active' })
		} finally {
			useStripe(fake)
		}
	})
})

/** The inbox-order job has planned the order and mailed the admins: it touches it no more. */
async function plannedByJob(orderId: string) {
	await expect
		.poll(async () => (await orderById(orderId)).admins_notified_at, { timeout: 20_000 })
		.not.toBeNull()
}

async function orderById(id: string) {
	return db.selectFrom('inbox_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** Holds the order's row lock (another admin's change under way) until the returned release. */
async function holdOrderLock(orderId: string) {
	let release!: () => void
	const released = new Promise<void>((resolve) => (release = resolve))
	let locked!: () => void
	const isLocked = new Promise<void>((resolve) => (locked = resolve))
	const done = db.transaction().execute(async (trx) => {
		await trx
			.selectFrom('inbox_orders')
			.select('id')
			.where('id', '=', orderId)
			.forUpdate()
			.execute()
		locked()
		await released
	})
	await isLocked
	return async () => {
		release()
		await done
	}
}

/** Waits until `count` sessions wait for an inbox order's row lock. */
async function waitingForOrderLock(count: number) {
	await expect
		.poll(
			async () => {
				const { rows } = await sql<{ n: number }>`
					select count(*)::int as n from pg_stat_activity
					where datname = current_database() and wait_event_type = 'Lock'
						and query like '%inbox_orders%for update%'`.execute(db)
				return rows[0]!.n
			},
			{ timeout: 10_000, interval: 20 },
		)
		.toBe(count)
}

const failure = (promise: Promise<unknown>) =>
	promise.then(
		() => null,
		(error: unknown) => error,
	)

describe('test mode: the renewal job', () => {
	async function orderedInTestMode(inboxes: number) {
		const owner = await ownerWithSubscribedDomain()
		const checkout = await startInboxOrderCheckout(owner.account, order(owner.domain.id, inboxes))
		expect(checkout.provider).toBe('test')
		await completeTestCheckout(owner.account, checkout.id)
		const paid = await orderOf(owner.user.id)
		expect(paid).toMatchObject({ billing_provider: 'test', quantity: inboxes, price_cents: 300 })
		const addresses = await fulfil(paid.id, owner.domain.name, inboxes)
		return { ...owner, order: await orderOf(owner.user.id), addresses }
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

	test('an order pending past its first month is not charged again; delivery starts the month', async () => {
		const owner = await ownerWithSubscribedDomain()
		const checkout = await startInboxOrderCheckout(owner.account, order(owner.domain.id, 2))
		await completeTestCheckout(owner.account, checkout.id)
		const paid = await orderOf(owner.user.id)
		await plannedByJob(paid.id)
		// a month and more since the checkout, and no admin has delivered it yet
		await monthOver(paid.id)
		await runRenewalJob()
		expect(await auditOf(paid.id, 'inboxes.billing.renew')).toHaveLength(0)
		expect(await orderOf(owner.user.id)).toMatchObject({ status: 1, billing_status: 'active' })

		const before = new Date(Math.floor(Date.now() / 1000) * 1000)
		const [ada] = await fulfil(paid.id, owner.domain.name, 2)
		const after = new Date()
		const delivered = await orderOf(owner.user.id)
		expect(delivered.billing_date! >= before && delivered.billing_date! <= after).toBe(true)
		expect(delivered.paid_through).toEqual(addMonths(delivered.billing_date!, 1))
		expect((await inboxOf(ada!)).period_end).toEqual(delivered.paid_through)
		// the month paid at checkout runs: nothing to renew yet
		await runRenewalJob()
		expect(await auditOf(paid.id, 'inboxes.billing.renew')).toHaveLength(0)

		// at its end the order renews, a month at a time, as any other
		const end = await monthOver(paid.id)
		await runRenewalJob()
		expect((await auditOf(paid.id, 'inboxes.billing.renew')).map((c) => c.after)).toEqual([
			expect.objectContaining({ provider: 'test', quantity: 2, amount_cents: 600 }),
		])
		expect(await inboxOf(ada!)).toMatchObject({ status: 'active', period_end: addMonths(end, 1) })
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
		const inbox = await inboxOf(addresses[0]!)
		expect(await auditOf(inbox.id, 'inboxes.inbox.end')).toHaveLength(1)
	})

	test('several inboxes ending at once: each ends, each with its own audit row', async () => {
		const { account, addresses, order } = await orderedInTestMode(3)
		for (const address of addresses) await cancel(account, address)
		await monthOver(order.id)
		await runRenewalJob()
		for (const address of addresses) {
			const inbox = await inboxOf(address)
			expect(inbox).toMatchObject({ status: 'cancelled' })
			expect(await auditOf(inbox.id, 'inboxes.inbox.end')).toMatchObject([
				{ after: { status: 'cancelled' } },
			])
		}
	})
})
