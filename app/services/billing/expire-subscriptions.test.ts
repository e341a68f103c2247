import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { auditActions, ledgerOf, newOwner } from '../../../tests/support/billing.ts'
import { loadAccountContext } from '../../context.server.ts'
import { completeTestCheckout } from './complete-checkout.server.ts'
import { choosePlan } from './choose-plan.server.ts'
import { addMonths } from './dates.ts'
import { expireSubscriptions, grantDuePlanCredits } from './expire-subscriptions.server.ts'
import { cancelSubscriptionAtPeriodEnd, findCurrentSubscription } from './subscriptions.server.ts'

async function subscribed(planId: number) {
	const owner = await newOwner()
	const choice = (await choosePlan(owner.account, planId)) as { url: string }
	await completeTestCheckout(owner.account, choice.url.split('/').pop()!)
	const sub = (await findCurrentSubscription(owner.user.id))!
	return { ...owner, sub }
}

describe('the subscription expiry job', () => {
	test('a cancelled plan keeps access until expire_date, then the job ends it', async () => {
		const { user, account, sub } = await subscribed(1)
		await cancelSubscriptionAtPeriodEnd(account)

		const justBefore = new Date(sub.expire_date!.getTime() - 1000)
		expect(await expireSubscriptions(justBefore)).toEqual([])
		expect((await findCurrentSubscription(user.id))?.status).toBe('active')

		const expired = await expireSubscriptions(sub.expire_date!)
		expect(expired.map((e) => e.id)).toContain(sub.id)
		const row = await db
			.selectFrom('subscriptions')
			.select('status')
			.where('id', '=', sub.id)
			.executeTakeFirstOrThrow()
		expect(row.status).toBe('expired')
		expect(await auditActions(sub.id)).toMatchObject([
			{ action: 'billing.subscription.activate' },
			{ action: 'billing.subscription.cancel_at_period_end' },
			{ action: 'billing.subscription.expire', actor_user_id: null, after: { status: 'expired' } },
		])
		// the next request sees no plan
		expect((await loadAccountContext(db, user)).activePlan).toBe(0)
		// running again changes nothing
		expect((await expireSubscriptions(sub.expire_date!)).map((e) => e.id)).not.toContain(sub.id)
	})

	test('subscriptions still in their period, and other statuses, are left alone', async () => {
		const { sub } = await subscribed(2)
		const expired = await expireSubscriptions(new Date())
		expect(expired.map((e) => e.id)).not.toContain(sub.id)
	})

	test('a yearly plan gets its monthly credits each month, once, until it ends', async () => {
		const { user, sub } = await subscribed(3)
		expect((await ledgerOf(user.id)).balance).toBe(2000)
		expect(sub.credits_next_grant_at).toEqual(addMonths(sub.billing_date!, 1))

		// nothing is due yet
		await grantDuePlanCredits(new Date(sub.billing_date!.getTime() + 86_400_000))
		expect((await ledgerOf(user.id)).balance).toBe(2000)

		// three months later (the job was down): three months of credits, once
		const later = addMonths(sub.billing_date!, 3)
		await grantDuePlanCredits(later)
		await grantDuePlanCredits(later)
		expect((await ledgerOf(user.id)).balance).toBe(8000)
		const after = (await findCurrentSubscription(user.id))!
		expect(after.credits_next_grant_at).toEqual(addMonths(sub.billing_date!, 4))

		// the whole year: 12 months in all, nothing at or after expire_date
		await grantDuePlanCredits(sub.expire_date!)
		await grantDuePlanCredits(addMonths(sub.expire_date!, 2))
		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(12 * 2000)
		expect(new Set(entries.map((e) => e.reference)).size).toBe(12)
		expect((await findCurrentSubscription(user.id))!.credits_next_grant_at).toBeNull()
	})

	test('a monthly plan gets no extra grant inside its period', async () => {
		const { user, sub } = await subscribed(1)
		expect(sub.credits_next_grant_at).toBeNull()
		await grantDuePlanCredits(addMonths(sub.billing_date!, 2))
		expect((await ledgerOf(user.id)).balance).toBe(2000)
	})
})

describe('the scheduled job', () => {
	test('is registered every few minutes and runs the expiry', async () => {
		const { jobDefinitions } = await import('../../jobs/registry.server.ts')
		const { subscriptionExpiryJob } =
			await import('../../jobs/definitions/subscription-expiry.server.ts')
		expect(jobDefinitions).toContain(subscriptionExpiryJob)
		expect(subscriptionExpiryJob.schedule?.cron).toBe('*/5 * * * *')

		const { user, sub } = await subscribed(1)
		await db
			.updateTable('subscriptions')
			.set({ expire_date: new Date(Date.now() - 1000) })
			.where('id', '=', sub.id)
			.execute()
		await subscriptionExpiryJob.handler(subscriptionExpiryJob.schema.parse({}), {
			jobId: 'test',
			retryCount: 0,
			signal: new AbortController().signal,
		})
		expect((await findCurrentSubscription(user.id))?.status).toBeUndefined()
		expect((await loadAccountContext(db, user)).activePlan).toBe(0)
	})
})
