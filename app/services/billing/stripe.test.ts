import { RouterContextProvider } from 'react-router'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
import { auditActions, ledgerOf, newOwner } from '../../../tests/support/billing.ts'
import { loadAccountContext } from '../../context.server.ts'
import { action as webhookAction } from '../../routes/resources/stripe-webhook.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { buyCreditPack } from './buy-credits.server.ts'
import { choosePlan } from './choose-plan.server.ts'
import { cancelSubscriptionAtPeriodEnd, findCurrentSubscription } from './subscriptions.server.ts'

// The Stripe path against the local fake (tests/fakes/stripe), with webhook
// events signed by the SDK's test-header helper and posted to the route.

let fake: FakeStripe

beforeAll(async () => {
	fake = await startFakeStripe()
	process.env.STRIPE_SECRET_KEY = fake.secretKey
	process.env.STRIPE_WEBHOOK_SECRET = fake.webhookSecret
	process.env.STRIPE_API_BASE = fake.url
	resetSingleton('config')
	resetSingleton('stripe')
})

afterAll(async () => {
	delete process.env.STRIPE_SECRET_KEY
	delete process.env.STRIPE_WEBHOOK_SECRET
	delete process.env.STRIPE_API_BASE
	resetSingleton('config')
	resetSingleton('stripe')
	await fake.close()
})

/** Posts an event to /stripe/webhook as Stripe would (raw JSON body, Stripe-Signature). */
async function deliver(event: object, options: { signature?: string | null; body?: string } = {}) {
	const payload = options.body ?? JSON.stringify(event, null, 2)
	const headers = new Headers({ 'Content-Type': 'application/json' })
	const signature = options.signature === undefined ? fake.sign(payload) : options.signature
	if (signature !== null) headers.set('Stripe-Signature', signature)
	const request = new Request('http://localhost/stripe/webhook', {
		method: 'POST',
		headers,
		body: payload,
	})
	const response = (await webhookAction({
		request,
		params: {},
		context: new RouterContextProvider(),
	} as never)) as Response
	return { status: response.status, text: await response.text() }
}

async function eventCount() {
	const rows = await db.selectFrom('stripe_events').select('id').execute()
	return rows.length
}

/** Subscribes through Stripe Checkout and the webhook; returns the Stripe subscription. */
async function subscribeWithStripe(planId: number) {
	const owner = await newOwner()
	const choice = await choosePlan(owner.account, planId)
	if (choice.kind !== 'checkout') throw new Error('expected a checkout')
	const sessionId = choice.url.split('/').pop()!
	const paid = fake.paySession(sessionId)
	expect((await deliver(fake.event('checkout.session.completed', paid.session))).status).toBe(200)
	return { ...owner, sessionId, subscription: paid.subscription!, invoice: paid.invoice! }
}

describe('plan subscriptions through Stripe Checkout', () => {
	test('checkout in subscription mode, then the webhook starts the plan with its credits', async () => {
		const { user, account } = await newOwner()
		const choice = await choosePlan(account, 2)
		expect(choice).toMatchObject({ kind: 'checkout', provider: 'stripe' })
		const url = (choice as { url: string }).url
		expect(url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/)
		const session = fake.sessions.get(url.split('/').pop()!)!
		expect(session).toMatchObject({ mode: 'subscription', status: 'open' })
		expect(session.success_url).toMatch(/\/subscription\?checkout=[0-9a-f-]{36}$/)
		const customer = fake.customers.get(session.customer)!
		expect(customer).toMatchObject({ email: user.email, metadata: { account_id: user.id } })
		// the plan's Stripe price is made once and remembered
		const plan = await db
			.selectFrom('price_plans')
			.select('stripe_price_id')
			.where('id', '=', 2)
			.executeTakeFirstOrThrow()
		expect(session.__items[0].price.id).toBe(plan.stripe_price_id)
		expect(fake.prices.get(plan.stripe_price_id!)).toMatchObject({
			unit_amount: 14900,
			recurring: { interval: 'month' },
		})
		expect(await findCurrentSubscription(user.id)).toBeUndefined()

		const paid = fake.paySession(session.id)
		const completed = fake.event('checkout.session.completed', paid.session)
		expect(await deliver(completed)).toEqual({ status: 200, text: 'OK' })
		const sub = await findCurrentSubscription(user.id)
		const item = paid.subscription!.items.data[0]
		expect(sub).toMatchObject({
			active_plan: 2,
			status: 'active',
			provider: 'stripe',
			provider_customer_id: session.customer,
			provider_subscription_id: paid.subscription!.id,
			billing_date: new Date(item.current_period_start * 1000),
			expire_date: new Date(item.current_period_end * 1000),
		})
		expect((await ledgerOf(user.id)).balance).toBe(10000)
		expect((await loadAccountContext(db, user)).activePlan).toBe(2)

		// the first invoice's invoice.paid grants nothing more (same period)
		expect((await deliver(fake.event('invoice.paid', paid.invoice!))).status).toBe(200)
		// a replayed event grants nothing twice
		expect(await deliver(completed)).toEqual({ status: 200, text: 'Already processed' })
		expect((await ledgerOf(user.id)).entries).toHaveLength(1)
		expect((await ledgerOf(user.id)).balance).toBe(10000)
		// a second delivery of the same change under a new event id changes nothing either
		expect((await deliver(fake.event('checkout.session.completed', paid.session))).status).toBe(200)
		const subs = await db
			.selectFrom('subscriptions')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()
		expect(subs).toHaveLength(1)
		expect((await ledgerOf(user.id)).balance).toBe(10000)
	})

	test('a bad signature answers 400 and changes nothing', async () => {
		const { user, account } = await newOwner()
		const choice = (await choosePlan(account, 1)) as { url: string }
		const paid = fake.paySession(choice.url.split('/').pop()!)
		const event = fake.event('checkout.session.completed', paid.session)
		const payload = JSON.stringify(event)
		const before = await eventCount()

		const wrongSecret = await deliver(event, {
			signature: fake.sign(payload, 'whsec_not_the_right_one'),
			body: payload,
		})
		const tampered = await deliver(event, {
			signature: fake.sign(payload),
			body: payload.replace('"paid"', '"paid" '),
		})
		const missing = await deliver(event, { signature: null, body: payload })
		for (const result of [wrongSecret, tampered, missing]) expect(result.status).toBe(400)
		expect(await eventCount()).toBe(before)
		expect(await findCurrentSubscription(user.id)).toBeUndefined()
		expect((await ledgerOf(user.id)).entries).toHaveLength(0)

		// the genuine event still goes through afterwards
		expect((await deliver(event, { body: payload })).status).toBe(200)
		expect((await findCurrentSubscription(user.id))?.active_plan).toBe(1)
	})

	test('invoice.paid renews: expire_date moves on and the period credits come once', async () => {
		const { user, subscription } = await subscribeWithStripe(1)
		expect((await ledgerOf(user.id)).balance).toBe(2000)
		const renewed = fake.renew(subscription.id)
		const event = fake.event('invoice.paid', renewed.invoice)
		expect((await deliver(event)).status).toBe(200)
		const item = renewed.subscription.items.data[0]
		const sub = await findCurrentSubscription(user.id)
		expect(sub).toMatchObject({
			status: 'active',
			billing_date: new Date(item.current_period_start * 1000),
			expire_date: new Date(item.current_period_end * 1000),
		})
		expect((await ledgerOf(user.id)).balance).toBe(4000)
		// replayed, and re-sent under a new event id: no second grant
		await deliver(event)
		await deliver(fake.event('invoice.paid', renewed.invoice))
		expect((await ledgerOf(user.id)).balance).toBe(4000)
		expect((await auditActions(sub!.id)).map((a) => a.action)).toEqual([
			'billing.subscription.activate',
			'billing.subscription.renew',
		])
	})

	test('invoice.payment_failed makes it past due, and the plan stops', async () => {
		const { user, subscription } = await subscribeWithStripe(1)
		const renewed = fake.renew(subscription.id)
		const failed = fake.invoiceFor(renewed.subscription, 'subscription_cycle', 'open')
		expect((await deliver(fake.event('invoice.payment_failed', failed))).status).toBe(200)
		expect((await findCurrentSubscription(user.id))?.status).toBe('past_due')
		expect((await loadAccountContext(db, user)).activePlan).toBe(0)
		// paid later: active again, with the new period's credits
		await deliver(
			fake.event('invoice.paid', fake.invoiceFor(renewed.subscription, 'subscription_cycle')),
		)
		expect((await findCurrentSubscription(user.id))?.status).toBe('active')
		expect((await ledgerOf(user.id)).balance).toBe(4000)
	})

	test('customer.subscription.updated and deleted follow Stripe', async () => {
		const { user, subscription } = await subscribeWithStripe(1)
		subscription.cancel_at_period_end = true
		await deliver(fake.event('customer.subscription.updated', subscription))
		expect(await findCurrentSubscription(user.id)).toMatchObject({
			cancel_at_period_end: true,
			status: 'active',
			active_plan: 1,
		})

		// a plan changed in Stripe's dashboard: the price names the plan in its metadata
		subscription.items.data[0].price = {
			...subscription.items.data[0].price,
			id: 'price_from_dashboard',
			metadata: { plan_id: '3' },
		}
		await deliver(fake.event('customer.subscription.updated', subscription))
		expect((await findCurrentSubscription(user.id))?.active_plan).toBe(3)

		subscription.status = 'canceled'
		await deliver(fake.event('customer.subscription.deleted', subscription))
		const rows = await db
			.selectFrom('subscriptions')
			.select(['status', 'canceled_at'])
			.where('user_id', '=', user.id)
			.execute()
		expect(rows).toMatchObject([{ status: 'canceled' }])
		expect(rows[0]!.canceled_at).toBeInstanceOf(Date)
		expect((await loadAccountContext(db, user)).activePlan).toBe(0)
	})

	test('a webhook for an unknown customer is logged, answered 200, and changes nothing', async () => {
		const { subscription } = await subscribeWithStripe(1)
		const stranger = structuredClone(subscription)
		stranger.id = 'sub_unknown_0001'
		stranger.customer = 'cus_unknown_0001'
		const before = {
			subs: await db.selectFrom('subscriptions').selectAll().orderBy('id').execute(),
			credits: await db.selectFrom('credits').selectAll().orderBy('id').execute(),
			audit: await db.selectFrom('audit_log').select('id').execute(),
		}
		const invoice = fake.invoiceFor(stranger, 'subscription_cycle')
		for (const event of [
			fake.event('invoice.paid', invoice),
			fake.event('invoice.payment_failed', invoice),
			fake.event('customer.subscription.updated', stranger),
			fake.event('customer.subscription.deleted', stranger),
			fake.event('checkout.session.completed', {
				...fake.paySession((await newCheckoutFor()).sessionId).session,
				id: 'cs_test_not_ours',
				customer: 'cus_unknown_0001',
			}),
		]) {
			expect((await deliver(event)).status).toBe(200)
		}
		expect(await db.selectFrom('subscriptions').selectAll().orderBy('id').execute()).toEqual(
			before.subs,
		)
		expect(await db.selectFrom('credits').selectAll().orderBy('id').execute()).toEqual(
			before.credits,
		)
		expect(await db.selectFrom('audit_log').select('id').execute()).toHaveLength(
			before.audit.length + 1, // the checkout created by newCheckoutFor
		)
	})

	test('cancel at period end and plan changes go to Stripe too', async () => {
		const { user, account, subscription } = await subscribeWithStripe(1)
		const choice = await choosePlan(account, 2)
		expect(choice).toMatchObject({ kind: 'changed' })
		const unlimitedPrice = await db
			.selectFrom('price_plans')
			.select('stripe_price_id')
			.where('id', '=', 2)
			.executeTakeFirstOrThrow()
		expect(fake.subscriptions.get(subscription.id)!.items.data[0].price.id).toBe(
			unlimitedPrice.stripe_price_id,
		)
		expect((await findCurrentSubscription(user.id))?.active_plan).toBe(2)
		expect(await choosePlan(account, 2).catch((e: unknown) => e)).toBeInstanceOf(FormError)

		await cancelSubscriptionAtPeriodEnd(account)
		expect(fake.subscriptions.get(subscription.id)!.cancel_at_period_end).toBe(true)
		expect((await findCurrentSubscription(user.id))?.cancel_at_period_end).toBe(true)
	})

	test('Stripe failing leaves a message and changes nothing', async () => {
		const { user, account, subscription } = await subscribeWithStripe(1)
		fake.failNext(5)
		const error = await cancelSubscriptionAtPeriodEnd(account).catch((e: unknown) => e)
		expect(error).toBeInstanceOf(FormError)
		expect((error as FormError).message).toMatch(/payment provider did not answer/)
		fake.failNext(0)
		expect((await findCurrentSubscription(user.id))?.cancel_at_period_end).toBe(false)
		expect(fake.subscriptions.get(subscription.id)!.cancel_at_period_end).toBe(false)
	})
})

async function newCheckoutFor() {
	const { account } = await newOwner()
	const checkout = await buyCreditPack(account, 1000)
	return { sessionId: checkout.url.split('/').pop()! }
}

describe('credit packs through Stripe Checkout', () => {
	test('payment mode; the webhook grants the pack once', async () => {
		const { user, account } = await newOwner()
		const checkout = await buyCreditPack(account, 20000)
		const session = fake.sessions.get(checkout.url.split('/').pop()!)!
		expect(session).toMatchObject({ mode: 'payment', amount_total: 24900 })
		expect(session.success_url).toMatch(/\/purchase\?checkout=/)
		const paid = fake.paySession(session.id)
		const event = fake.event('checkout.session.completed', paid.session)
		await deliver(event)
		await deliver(event)
		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(20000)
		expect(entries).toMatchObject([{ reason: 'purchase', reference: `checkout:${checkout.id}:0` }])
		const stored = await db
			.selectFrom('checkout_sessions')
			.select(['status', 'provider_session_id'])
			.where('id', '=', checkout.id)
			.executeTakeFirstOrThrow()
		expect(stored).toEqual({ status: 'completed', provider_session_id: session.id })
	})

	test('a delayed payment: nothing on completion, the pack when the payment succeeds', async () => {
		const { user, account } = await newOwner()
		const checkout = await buyCreditPack(account, 1000)
		const session = fake.sessions.get(checkout.url.split('/').pop()!)!
		const paid = fake.paySession(session.id).session
		const unpaid = { ...paid, payment_status: 'unpaid' }
		expect((await deliver(fake.event('checkout.session.completed', unpaid))).status).toBe(200)
		expect((await ledgerOf(user.id)).balance).toBe(0)
		await deliver(fake.event('checkout.session.async_payment_succeeded', paid))
		expect((await ledgerOf(user.id)).balance).toBe(1000)
	})
})

describe('Stripe answers are checked where they enter (issue 39)', () => {
	test('a subscription answer without its items is a clear error, and nothing is written', async () => {
		const { user, account } = await newOwner()
		const choice = await choosePlan(account, 2)
		const paid = fake.paySession((choice as { url: string }).url.split('/').pop()!)
		// Stripe answers GET /v1/subscriptions/:id without the items the period is read from
		delete fake.subscriptions.get(paid.subscription!.id)!.items
		const before = await eventCount()
		await expect(deliver(fake.event('checkout.session.completed', paid.session))).rejects.toThrow(
			/GET https:\/\/api\.stripe\.com\/v1\/subscriptions\/sub_\w+ answered 200 with an undocumented body: items: /,
		)
		// the event is not recorded: Stripe's retry starts over
		expect(await eventCount()).toBe(before)
		expect(await findCurrentSubscription(user.id)).toBeUndefined()
	})

	test('a webhook invoice without its lines is a clear error naming the event', async () => {
		const { subscription } = await subscribeWithStripe(2)
		const { invoice } = fake.renew(subscription.id)
		const event = fake.event('invoice.paid', { ...invoice, lines: undefined })
		await expect(deliver(event)).rejects.toThrow(
			new RegExp(`invoice\\.paid ${event.id} answered 200 with an undocumented body: lines: `),
		)
	})
})
