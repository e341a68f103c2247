import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
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
import { action as domainSubscriptionsAction } from '../../routes/domain-subscriptions.tsx'
import type { AccountContext } from '../../context.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { addMonths } from '../billing/dates.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import { listOrderableDomains } from '../inboxes/orders.server.ts'
import {
	findForward,
	listenForForwardingChanges,
	stopListeningForForwardingChanges,
} from './forwarding-cache.server.ts'
import { setForwarding } from './forwarding.server.ts'
import {
	listDomainSubscriptions,
	setDomainSubscriptionCancel,
	startDomainSubscription,
} from './subscriptions.server.ts'

// Renewal of domain subscriptions (decision 0013): Stripe's renewals through signed webhook
// events against the local fake, and test mode's renewals by the subscription-renewal job run
// through pg-boss. An ended subscription takes forwarding and inbox ordering with it.

let workers: Workers

beforeAll(async () => {
	await listenForForwardingChanges()
	workers = await startWorkers({ concurrency: 1, drainSeconds: 5 })
})

afterAll(async () => {
	await workers.stop()
	await stopListeningForForwardingChanges()
})

async function subscriptionOf(domainId: string) {
	return db
		.selectFrom('domain_subscriptions')
		.selectAll()
		.where('domain_id', '=', domainId)
		.orderBy('created_at', 'desc')
		.executeTakeFirstOrThrow()
}

async function domainStatus(id: string) {
	const row = await db
		.selectFrom('domains')
		.select('status')
		.where('id', '=', id)
		.executeTakeFirstOrThrow()
	return row.status
}

/** Forwards a domain whose owner proved control (verification itself: domains.test.ts). */
async function forward(account: AccountContext, domainId: string) {
	await db
		.updateTable('domains')
		.set({ verified_at: new Date() })
		.where('id', '=', domainId)
		.execute()
	await setForwarding(account, {
		domainId,
		url: 'https://example.org/landing',
		code: 302,
		keepPath: false,
	})
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

	/** Subscribes a domain through Stripe Checkout and the webhook. */
	async function subscribedWithStripe() {
		const name = uniqueName('stripe')
		const owner = await ownerWithDomains([name])
		const domain = owner.domains[0]!
		const checkout = await startDomainSubscription(owner.account, domain.id)
		expect(checkout.provider).toBe('stripe')
		const paid = fake.paySession(checkout.url.split('/').pop()!)
		expect(
			(await deliver(fake, fake.event('checkout.session.completed', paid.session))).status,
		).toBe(200)
		const sub = await subscriptionOf(domain.id)
		expect(sub).toMatchObject({
			status: 'active',
			provider: 'stripe',
			provider_subscription_id: paid.subscription!.id,
		})
		return { ...owner, domain, sub, stripeSub: paid.subscription!, invoice: paid.invoice! }
	}

	test('invoice.paid renews: the period moves on once per invoice, whatever Stripe repeats', async () => {
		const { account, domain, sub, stripeSub, invoice } = await subscribedWithStripe()
		// the first invoice is the period the checkout already paid: nothing moves
		await deliver(fake, fake.event('invoice.paid', invoice))
		expect((await subscriptionOf(domain.id)).expire_date).toEqual(sub.expire_date)

		const renewed = fake.renew(stripeSub.id)
		const item = renewed.subscription.items.data[0]
		const event = fake.event('invoice.paid', renewed.invoice)
		expect(await deliver(fake, event)).toEqual({ status: 200, text: 'OK' })
		const after = await subscriptionOf(domain.id)
		expect(after).toMatchObject({
			status: 'active',
			billing_date: new Date(item.current_period_start * 1000),
			expire_date: new Date(item.current_period_end * 1000),
		})
		expect(after.expire_date!.getTime()).toBeGreaterThan(sub.expire_date!.getTime())
		// replayed, and the same invoice under a new event id: one renewal
		expect(await deliver(fake, event)).toEqual({ status: 200, text: 'Already processed' })
		await deliver(fake, fake.event('invoice.paid', renewed.invoice))
		expect((await subscriptionOf(domain.id)).expire_date).toEqual(after.expire_date)
		expect(await auditOf(sub.id, 'domains.subscription.renew')).toHaveLength(1)
		// the page shows the new renewal date
		const [row] = await listDomainSubscriptions(account)
		expect(row).toMatchObject({ status: 'active', expire_date: after.expire_date })
	})

	test('cancel at period end goes to Stripe; customer.subscription.updated mirrors it', async () => {
		const { account, domain, sub, stripeSub } = await subscribedWithStripe()
		await setDomainSubscriptionCancel(account, sub.id, true)
		expect(fake.subscriptions.get(stripeSub.id)!.cancel_at_period_end).toBe(true)
		expect((await subscriptionOf(domain.id)).cancel_at_period_end).toBe(true)

		// resumed in Stripe's dashboard: the page follows
		const remote = structuredClone(fake.subscriptions.get(stripeSub.id)!)
		remote.cancel_at_period_end = false
		await deliver(fake, fake.event('customer.subscription.updated', remote))
		expect((await subscriptionOf(domain.id)).cancel_at_period_end).toBe(false)
		remote.cancel_at_period_end = true
		await deliver(fake, fake.event('customer.subscription.updated', remote))
		const [row] = await listDomainSubscriptions(account)
		expect(row).toMatchObject({ cancel_at_period_end: true, status: 'active' })

		// an out-of-order update with an older period does not move the date back
		const older = structuredClone(remote)
		older.items.data[0].current_period_end -= 86_400 * 40
		await deliver(fake, fake.event('customer.subscription.updated', older))
		expect((await subscriptionOf(domain.id)).expire_date).toEqual(sub.expire_date)
	})

	test('with Stripe not configured, cancelling says so on the page and changes nothing', async () => {
		const { account, domain, sub, stripeSub } = await subscribedWithStripe()
		stopUsingStripe()
		try {
			for (const intent of ['cancel', 'resume']) {
				if (intent === 'resume') {
					// cancelled while Stripe was reachable: taking it back is refused the same way
					await db
						.updateTable('domain_subscriptions')
						.set({ cancel_at_period_end: true })
						.where('id', '=', sub.id)
						.execute()
					fake.subscriptions.get(stripeSub.id)!.cancel_at_period_end = true
				}
				const page = await postForm(domainSubscriptionsAction, account, '/domain-subscriptions', {
					intent,
					id: sub.id,
				})
				expect(page).toMatchObject({
					status: 302,
					location: '/domain-subscriptions',
					toast: {
						type: 'error',
						message: `The subscription of ${domain.name} is billed through Stripe, which this server is not connected to right now. Nothing was changed; try again later or contact support.`,
					},
				})
				const cancelled = intent === 'resume'
				expect((await subscriptionOf(domain.id)).cancel_at_period_end).toBe(cancelled)
				expect(fake.subscriptions.get(stripeSub.id)!.cancel_at_period_end).toBe(cancelled)
			}
			expect(await auditOf(sub.id, 'domains.subscription.cancel_at_period_end')).toHaveLength(0)
			expect(await auditOf(sub.id, 'domains.subscription.resume')).toHaveLength(0)
		} finally {
			useStripe(fake)
		}
	})

	test('a failed payment is past due; paid later it is active again', async () => {
		const { account, domain, sub, stripeSub } = await subscribedWithStripe()
		const renewed = fake.renew(stripeSub.id)
		const failed = fake.invoiceFor(renewed.subscription, 'subscription_cycle', 'open')
		await deliver(fake, fake.event('invoice.payment_failed', failed))
		expect((await subscriptionOf(domain.id)).status).toBe('past_due')
		expect(await auditOf(sub.id, 'domains.subscription.past_due')).toHaveLength(1)
		// still paid through its period: the domain keeps working until then
		expect((await listOrderableDomains(account)).map((d) => d.id)).toContain(domain.id)
		await deliver(
			fake,
			fake.event('invoice.paid', fake.invoiceFor(renewed.subscription, 'subscription_cycle')),
		)
		expect(await subscriptionOf(domain.id)).toMatchObject({
			status: 'active',
			expire_date: new Date(renewed.subscription.items.data[0].current_period_end * 1000),
		})
	})

	test('customer.subscription.deleted ends it: no more forwarding or inbox ordering', async () => {
		const { account, domain, stripeSub } = await subscribedWithStripe()
		await forward(account, domain.id)
		await expect.poll(() => findForward(domain.name)).toMatchObject({ code: 302 })

		const remote = structuredClone(fake.subscriptions.get(stripeSub.id)!)
		remote.status = 'canceled'
		await deliver(fake, fake.event('customer.subscription.deleted', remote))
		expect((await subscriptionOf(domain.id)).status).toBe('canceled')
		expect(await domainStatus(domain.id)).toBe('expired')
		await expect.poll(() => findForward(domain.name), { timeout: 5000 }).toBeUndefined()
		expect((await listOrderableDomains(account)).map((d) => d.id)).not.toContain(domain.id)
		// a late invoice for the ended subscription does not bring it back
		const late = fake.renew(stripeSub.id)
		await deliver(fake, fake.event('invoice.paid', late.invoice))
		expect((await subscriptionOf(domain.id)).status).toBe('canceled')
	})
})

describe('test mode: the renewal job', () => {
	async function subscribedInTestMode() {
		const owner = await ownerWithDomains([uniqueName('renew'), uniqueName('cancel')])
		for (const domain of owner.domains) {
			const checkout = await startDomainSubscription(owner.account, domain.id)
			expect(checkout.provider).toBe('test')
			await completeTestCheckout(owner.account, checkout.id)
		}
		return owner
	}

	/** The billing clock: the current period ended a minute ago. */
	async function periodOver(domainId: string) {
		const sub = await subscriptionOf(domainId)
		const end = new Date(Date.now() - 60_000)
		await db
			.updateTable('domain_subscriptions')
			.set({ billing_date: addMonths(end, -1), expire_date: end })
			.where('id', '=', sub.id)
			.execute()
		return end
	}

	test('renews those not cancelled, a month on; the cancelled one ends with its forwarding', async () => {
		const { account, domains } = await subscribedInTestMode()
		const [renewing, cancelled] = domains as [(typeof domains)[0], (typeof domains)[0]]
		for (const d of domains) await forward(account, d.id)
		const cancelledSub = await subscriptionOf(cancelled.id)
		await setDomainSubscriptionCancel(account, cancelledSub.id, true)
		await expect.poll(() => findForward(cancelled.name)).toMatchObject({ code: 302 })
		const endRenewing = await periodOver(renewing.id)
		await periodOver(cancelled.id)

		await runRenewalJob()

		expect(await subscriptionOf(renewing.id)).toMatchObject({
			status: 'active',
			billing_date: endRenewing,
			expire_date: addMonths(endRenewing, 1),
		})
		const renewal = await auditOf(
			(await subscriptionOf(renewing.id)).id,
			'domains.subscription.renew',
		)
		expect(renewal).toHaveLength(1)
		expect(renewal[0]!.after).toMatchObject({ provider: 'test', price_cents: 1500 })
		expect(await domainStatus(renewing.id)).toBe('active')
		await expect.poll(() => findForward(renewing.name)).toMatchObject({ code: 302 })

		expect((await subscriptionOf(cancelled.id)).status).toBe('expired')
		expect(await domainStatus(cancelled.id)).toBe('expired')
		await expect.poll(() => findForward(cancelled.name), { timeout: 5000 }).toBeUndefined()
		expect((await listOrderableDomains(account)).map((d) => d.name)).toEqual([renewing.name])

		// the page: the renewed one renews on its new date; the ended one can be subscribed again
		const rows = await listDomainSubscriptions(account)
		expect(rows.find((r) => r.domain_id === renewing.id)).toMatchObject({
			status: 'active',
			cancel_at_period_end: false,
			expire_date: addMonths(endRenewing, 1),
		})
		expect(rows.find((r) => r.domain_id === cancelled.id)).toMatchObject({ status: 'expired' })
		expect(
			await outcomeOf(() => setDomainSubscriptionCancel(account, cancelledSub.id, false)),
		).toBe('form')

		// the job again: nothing more happens
		await runRenewalJob()
		expect(
			await auditOf((await subscriptionOf(renewing.id)).id, 'domains.subscription.renew'),
		).toHaveLength(1)
	})

	test('a period ending before the next run renews now, so forwarding never pauses', async () => {
		const { account, domains } = await subscribedInTestMode()
		const domain = domains[0]!
		await forward(account, domain.id)
		const soon = new Date(Date.now() + 4 * 60_000)
		await db
			.updateTable('domain_subscriptions')
			.set({ expire_date: soon })
			.where('domain_id', '=', domain.id)
			.execute()
		await runRenewalJob()
		expect(await subscriptionOf(domain.id)).toMatchObject({
			billing_date: soon,
			expire_date: addMonths(soon, 1),
		})
		await expect.poll(() => findForward(domain.name)).toMatchObject({ code: 302 })
	})

	test('forwarding stops at the end of the paid period, even before the job runs', async () => {
		const { account, domains } = await subscribedInTestMode()
		const domain = domains[0]!
		await forward(account, domain.id)
		await expect.poll(() => findForward(domain.name)).toMatchObject({ code: 302 })
		await setDomainSubscriptionCancel(account, (await subscriptionOf(domain.id)).id, true)
		await periodOver(domain.id)
		await expect.poll(() => findForward(domain.name), { timeout: 5000 }).toBeUndefined()
		expect(await domainStatus(domain.id)).toBe('active') // the job has not run yet
	})

	test('resumed before the period ends, it renews as usual', async () => {
		const { account, domains } = await subscribedInTestMode()
		const domain = domains[0]!
		const sub = await subscriptionOf(domain.id)
		await setDomainSubscriptionCancel(account, sub.id, true)
		await setDomainSubscriptionCancel(account, sub.id, false)
		const end = await periodOver(domain.id)
		await runRenewalJob()
		expect(await subscriptionOf(domain.id)).toMatchObject({
			status: 'active',
			expire_date: addMonths(end, 1),
		})
	})

	test("another account's subscription ids are 404 for cancel and resume", async () => {
		const { domains } = await subscribedInTestMode()
		const sub = await subscriptionOf(domains[0]!.id)
		const stranger = await ownerWithDomains([])
		for (const cancel of [true, false]) {
			expect(
				await outcomeOf(() => setDomainSubscriptionCancel(stranger.account, sub.id, cancel)),
			).toBe(404)
		}
		expect((await subscriptionOf(domains[0]!.id)).cancel_at_period_end).toBe(false)
	})
})
