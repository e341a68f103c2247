import { RouterContextProvider } from 'react-router'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
import {
	auditOf,
	deliver,
	ownerWithDomains,
	stopUsingStripe,
	uniqueName,
	useStripe,
} from '../../../tests/support/recurring.ts'
import { requestContext, type AccountContext } from '../../context.server.ts'
import { action as testPaymentAction } from '../../routes/test-payment.tsx'
import { getToast } from '../../utils/toast.server.ts'
import { startDomainSubscription } from '../domains/subscriptions.server.ts'
import { startInboxOrderCheckout } from '../inboxes/orders.server.ts'
import { addMonths } from './dates.ts'
import { refundOwedCheckouts } from './refunds.server.ts'

// One purchase, one payment (issue 40 point 4, decision 0064): two checkout pages opened for
// the same domain subscription or the same inbox order, both paid. The second payment must not
// replace or duplicate the first; it is refunded (Stripe: its subscription cancelled and its
// charge refunded; test mode: the refund recorded), and the first stays as it was.

async function checkoutRow(id: string) {
	return db
		.selectFrom('checkout_sessions')
		.selectAll()
		.where('id', '=', id)
		.executeTakeFirstOrThrow()
}

async function domainSubscriptions(domainId: string) {
	return db
		.selectFrom('domain_subscriptions')
		.select(['id', 'status', 'checkout_session_id', 'provider_subscription_id'])
		.where('domain_id', '=', domainId)
		.orderBy('created_at')
		.execute()
}

async function inboxOrders(accountId: string) {
	return db
		.selectFrom('inbox_orders')
		.select(['id', 'checkout_session_id', 'billing_status'])
		.where('user_id', '=', accountId)
		.execute()
}

/** An owner with one domain whose subscription is live (inboxes can be ordered on it). */
async function ownerWithSubscribedDomain() {
	const owner = await ownerWithDomains([uniqueName('twice')])
	const domain = owner.domains[0]!
	await db.updateTable('domains').set({ status: 'active' }).where('id', '=', domain.id).execute()
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

function inboxOrder(domainId: string) {
	return {
		domainIds: [domainId],
		provider: 'google',
		inboxesPerDomain: 2,
		personas: 'Ada Lovelace\nGrace Hopper',
		patterns: ['first'],
	}
}

/** The payer presses Complete on the test-payment page: where it lands and what it reads. */
async function payOnTestPage(
	account: AccountContext,
	checkoutId: string,
): Promise<{
	status: number
	location?: string | null
	toast?: { type: string; message: string } | null
}> {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const request = new Request(`http://localhost/test-payment/${checkoutId}`, {
		method: 'POST',
		body: new URLSearchParams({ intent: 'complete' }),
	})
	const response = (await testPaymentAction({
		request,
		context,
		params: { sessionId: checkoutId },
	} as never)) as Response | { init: { status: number } }
	// a form error is data() with its status, not a Response
	if (!(response instanceof Response)) return { status: response.init.status }
	const cookie = response.headers.get('Set-Cookie')?.split(';')[0] ?? ''
	const { toast } = await getToast(new Request('http://localhost/', { headers: { cookie } }))
	return { status: response.status, location: response.headers.get('Location'), toast }
}

describe('test mode', () => {
	test('a domain subscription paid from a second checkout page is refunded, the first kept', async () => {
		const owner = await ownerWithDomains([uniqueName('twice')])
		const domain = owner.domains[0]!
		// two tabs: both checkouts open while the domain has no subscription
		const first = await startDomainSubscription(owner.account, domain.id)
		const second = await startDomainSubscription(owner.account, domain.id)

		expect(await payOnTestPage(owner.account, first.id)).toMatchObject({
			location: '/domain-subscriptions',
			toast: { type: 'success' },
		})
		const paid = await payOnTestPage(owner.account, second.id)
		expect(paid.location).toBe('/domain-subscriptions')
		expect(paid.toast).toMatchObject({
			type: 'error',
			message: expect.stringContaining(`${domain.name} was already subscribed`),
		})
		expect(paid.toast?.message).toContain('refunded')

		// the first subscription is live and the only one
		const subs = await domainSubscriptions(domain.id)
		expect(subs).toEqual([
			expect.objectContaining({ status: 'active', checkout_session_id: first.id }),
		])
		// the second payment is recorded as refunded, in full, with its reason
		const refunded = await checkoutRow(second.id)
		expect(refunded).toMatchObject({ status: 'refunded', refund_reason: expect.any(String) })
		expect(refunded.refunded_at).toBeInstanceOf(Date)
		expect(await auditOf(second.id, 'billing.checkout.refund')).toEqual([
			expect.objectContaining({
				after: expect.objectContaining({ status: 'refunded', total_cents: refunded.total_cents }),
			}),
		])
		// paying it again changes nothing
		expect((await payOnTestPage(owner.account, second.id)).status).toBe(400)
		expect(await domainSubscriptions(domain.id)).toHaveLength(1)
	})

	test('paid at the same moment: one delivered, one refunded', async () => {
		const owner = await ownerWithDomains([uniqueName('twice')])
		const domain = owner.domains[0]!
		const first = await startDomainSubscription(owner.account, domain.id)
		const second = await startDomainSubscription(owner.account, domain.id)
		await Promise.all([
			payOnTestPage(owner.account, first.id),
			payOnTestPage(owner.account, second.id),
		])
		expect(await domainSubscriptions(domain.id)).toHaveLength(1)
		const statuses = [(await checkoutRow(first.id)).status, (await checkoutRow(second.id)).status]
		expect(statuses.sort()).toEqual(['completed', 'refunded'])

		const owner2 = await ownerWithSubscribedDomain()
		const orders = await Promise.all(
			[1, 2, 3].map(() => startInboxOrderCheckout(owner2.account, inboxOrder(owner2.domain.id))),
		)
		await Promise.all(orders.map((o) => payOnTestPage(owner2.account, o.id)))
		expect(await inboxOrders(owner2.user.id)).toHaveLength(1)
	})

	test('the same inbox order paid from two checkout pages makes one order; the second is refunded', async () => {
		const owner = await ownerWithSubscribedDomain()
		const first = await startInboxOrderCheckout(owner.account, inboxOrder(owner.domain.id))
		const second = await startInboxOrderCheckout(owner.account, inboxOrder(owner.domain.id))

		expect((await payOnTestPage(owner.account, first.id)).toast?.type).toBe('success')
		const paid = await payOnTestPage(owner.account, second.id)
		expect(paid.toast).toMatchObject({
			type: 'error',
			message: expect.stringContaining('These inboxes were already ordered'),
		})
		expect(paid.toast?.message).toContain('refunded')
		expect(await inboxOrders(owner.user.id)).toEqual([
			expect.objectContaining({ checkout_session_id: first.id, billing_status: 'active' }),
		])
		expect(await checkoutRow(second.id)).toMatchObject({
			status: 'refunded',
			refunded_at: expect.any(Date),
		})
		// and a third checkout page for it is refused before anyone pays
		await expect(
			startInboxOrderCheckout(owner.account, inboxOrder(owner.domain.id)),
		).rejects.toThrow(/already ordered exactly these inboxes/)
	})
})

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

	const stripeSession = (url: string) => url.split('/').pop()!

	test('a domain subscription paid twice: the second Stripe subscription is cancelled and its charge refunded', async () => {
		const owner = await ownerWithDomains([uniqueName('twice')])
		const domain = owner.domains[0]!
		const first = await startDomainSubscription(owner.account, domain.id)
		const second = await startDomainSubscription(owner.account, domain.id)
		const paidFirst = fake.paySession(stripeSession(first.url))
		const paidSecond = fake.paySession(stripeSession(second.url))

		expect(
			(await deliver(fake, fake.event('checkout.session.completed', paidFirst.session))).status,
		).toBe(200)
		// the refund's answer is lost (twice: the SDK's retry too): the webhook fails (a 500),
		// and Stripe delivers the event again
		const event = fake.event('checkout.session.completed', paidSecond.session)
		fake.loseNext('POST /v1/refunds', 2)
		await expect(deliver(fake, event)).rejects.toThrow()
		expect(await checkoutRow(second.id)).toMatchObject({ status: 'refunded', refunded_at: null })
		expect(await deliver(fake, event)).toEqual({ status: 200, text: 'Already processed' })

		const subs = await domainSubscriptions(domain.id)
		expect(subs).toEqual([
			expect.objectContaining({
				status: 'active',
				checkout_session_id: first.id,
				provider_subscription_id: paidFirst.subscription!.id,
			}),
		])
		expect(fake.subscriptions.get(paidFirst.subscription!.id)!.status).toBe('active')
		expect(fake.subscriptions.get(paidSecond.subscription!.id)!.status).toBe('canceled')
		const intent = (paidSecond.invoice as unknown as { __payment_intent: string }).__payment_intent
		expect(fake.refunds.filter((r) => r.payment_intent === intent)).toHaveLength(1)
		const refunded = await checkoutRow(second.id)
		expect(refunded).toMatchObject({ status: 'refunded', refunded_at: expect.any(Date) })
		expect(refunded.provider_refund_id).toMatch(/^re_/)
		// another delivery refunds nothing more
		await deliver(fake, fake.event('checkout.session.completed', paidSecond.session))
		expect(fake.refunds.filter((r) => r.payment_intent === intent)).toHaveLength(1)
		expect(await auditOf(second.id, 'billing.checkout.refunded')).toHaveLength(1)
	})

	test('an inbox order paid twice: one order; a refund the webhook could not get, the job gets', async () => {
		const owner = await ownerWithSubscribedDomain()
		const first = await startInboxOrderCheckout(owner.account, inboxOrder(owner.domain.id))
		const second = await startInboxOrderCheckout(owner.account, inboxOrder(owner.domain.id))
		const paidFirst = fake.paySession(stripeSession(first.url))
		const paidSecond = fake.paySession(stripeSession(second.url))
		expect(
			(await deliver(fake, fake.event('checkout.session.completed', paidFirst.session))).status,
		).toBe(200)
		fake.loseNext('POST /v1/refunds', 2)
		await expect(
			deliver(fake, fake.event('checkout.session.completed', paidSecond.session)),
		).rejects.toThrow()

		expect(await inboxOrders(owner.user.id)).toEqual([
			expect.objectContaining({ checkout_session_id: first.id }),
		])
		// Stripe never delivered it again: the renewal job's sweep refunds it
		expect(await refundOwedCheckouts()).toBeGreaterThanOrEqual(1)
		expect(fake.subscriptions.get(paidSecond.subscription!.id)!.status).toBe('canceled')
		const intent = (paidSecond.invoice as unknown as { __payment_intent: string }).__payment_intent
		expect(fake.refunds.filter((r) => r.payment_intent === intent)).toHaveLength(1)
		expect(await checkoutRow(second.id)).toMatchObject({ refunded_at: expect.any(Date) })
	})
})
