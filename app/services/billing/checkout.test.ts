import { afterEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { FormError, statusOf } from '../../utils/http-errors.server.ts'
import { auditActions, ledgerOf, newOwner, newTeamMember } from '../../../tests/support/billing.ts'
import { buyCreditPack } from './buy-credits.server.ts'
import { declineTestCheckout, findCheckout, findTestCheckout } from './checkout.server.ts'
import { completeTestCheckout } from './complete-checkout.server.ts'
import { choosePlan, previewPlanChange } from './choose-plan.server.ts'
import {
	cancelSubscriptionAtPeriodEnd,
	findCurrentSubscription,
	resumeSubscription,
} from './subscriptions.server.ts'

// Without STRIPE_SECRET_KEY, outside production: the test-payment page.

async function rejection(promise: Promise<unknown>) {
	return promise.then(
		() => {
			throw new Error('expected a rejection')
		},
		(error: unknown) => error,
	)
}

async function subscribe(account: Awaited<ReturnType<typeof newOwner>>['account'], planId: number) {
	const choice = await choosePlan(account, planId)
	if (choice.kind !== 'checkout') throw new Error('expected a checkout')
	expect(choice.url).toMatch(/^\/test-payment\/[0-9a-f-]{36}$/)
	return completeTestCheckout(account, choice.url.split('/').pop()!)
}

afterEach(() => {
	delete process.env.PAYMENTS
	delete process.env.APP_URL
	process.env.NODE_ENV = 'test'
	resetSingleton('config')
})

describe('subscribing through the test-payment page', () => {
	test('a plan starts when the payer completes: dates, credits, audit', async () => {
		const { user, account } = await newOwner()
		const choice = await choosePlan(account, 1)
		expect(choice).toMatchObject({ kind: 'checkout', provider: 'test' })
		const id = (choice as { url: string }).url.split('/').pop()!
		expect(await findCurrentSubscription(user.id)).toBeUndefined()

		const session = await completeTestCheckout(account, id)
		expect(session).toMatchObject({ status: 'completed', success_path: '/' })
		const sub = await findCurrentSubscription(user.id)
		expect(sub).toMatchObject({ active_plan: 1, status: 'active', provider: 'test' })
		const days = (sub!.expire_date!.getTime() - sub!.billing_date!.getTime()) / 86_400_000
		expect(days).toBeGreaterThanOrEqual(28)
		expect(days).toBeLessThanOrEqual(31)

		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(2000)
		expect(entries).toMatchObject([{ reason: 'plan', delta: 2000 }])

		const context = await loadAccountContext(db, user)
		expect(context.activePlan).toBe(1)
		expect(context.creditBalance).toBe(2000)

		expect((await auditActions(id)).map((a) => a.action)).toEqual([
			'billing.checkout.create',
			'billing.checkout.complete',
		])
		expect(await auditActions(sub!.id)).toMatchObject([
			{ action: 'billing.subscription.activate', actor_user_id: user.id },
		])

		// completing twice changes nothing
		const again = await rejection(completeTestCheckout(account, id))
		expect(again).toBeInstanceOf(FormError)
		expect((await ledgerOf(user.id)).balance).toBe(2000)
	})

	test('a declined payment starts nothing', async () => {
		const { user, account } = await newOwner()
		const choice = (await choosePlan(account, 2)) as { url: string }
		const id = choice.url.split('/').pop()!
		const declined = await declineTestCheckout(account, id)
		expect(declined.status).toBe('declined')
		expect(await findCurrentSubscription(user.id)).toBeUndefined()
		expect((await ledgerOf(user.id)).entries).toHaveLength(0)
		expect(await rejection(completeTestCheckout(account, id))).toBeInstanceOf(FormError)
		expect(await findCurrentSubscription(user.id)).toBeUndefined()
	})

	test('changing plan replaces the subscription; the same plan again is refused', async () => {
		const { user, account } = await newOwner()
		await subscribe(account, 1)
		const refused = await rejection(choosePlan(account, 1))
		expect(refused).toBeInstanceOf(FormError)
		expect(refused).toMatchObject({
			field: 'planId',
			message: 'You are already on the Monthly Starter plan.',
		})

		await subscribe(account, 4)
		const subs = await db
			.selectFrom('subscriptions')
			.select(['active_plan', 'status'])
			.where('user_id', '=', user.id)
			.orderBy('created_at')
			.execute()
		expect(subs).toEqual([
			{ active_plan: 1, status: 'canceled' },
			{ active_plan: 4, status: 'active' },
		])
		// yearly unlimited: its first month of credits at once
		expect((await ledgerOf(user.id)).balance).toBe(2000 + 10000)
	})

	test('cancel at period end keeps access until expire_date; resume takes it back', async () => {
		const { user, account } = await newOwner()
		await expect(cancelSubscriptionAtPeriodEnd(account)).rejects.toThrow(
			'You have no active subscription.',
		)
		await subscribe(account, 3)
		const cancelled = await cancelSubscriptionAtPeriodEnd(account)
		expect(cancelled).toMatchObject({ status: 'active', cancel_at_period_end: true })
		expect((await loadAccountContext(db, user)).activePlan).toBe(3)
		await expect(cancelSubscriptionAtPeriodEnd(account)).rejects.toThrow(/already ends on/)

		const resumed = await resumeSubscription(account)
		expect(resumed.cancel_at_period_end).toBe(false)
		await expect(resumeSubscription(account)).rejects.toThrow(/not cancelled/)
		expect((await auditActions(cancelled.id)).map((a) => a.action)).toEqual([
			'billing.subscription.activate',
			'billing.subscription.cancel_at_period_end',
			'billing.subscription.resume',
		])
		const [, cancelAudit] = await auditActions(cancelled.id)
		expect(cancelAudit).toMatchObject({
			actor_user_id: user.id,
			before: { cancel_at_period_end: false },
			after: { cancel_at_period_end: true },
		})
	})

	test('bad input: unknown plan ids, and plans for a lifetime deal', async () => {
		const { user, account } = await newOwner()
		for (const planId of [0, 5, 99, -1]) {
			const error = await rejection(choosePlan(account, planId))
			expect(error).toMatchObject({ field: 'planId', message: 'Choose one of the plans shown.' })
		}
		const ltd = await newOwner({ ltd: true })
		expect(ltd.account.isLTD).toBe(true)
		expect(await rejection(choosePlan(ltd.account, 1))).toMatchObject({
			field: 'planId',
			message: 'Your lifetime deal already includes every feature.',
		})
		const checkouts = await db
			.selectFrom('checkout_sessions')
			.select('id')
			.where('user_id', 'in', [user.id, ltd.user.id])
			.execute()
		expect(checkouts).toHaveLength(0)
	})
})

describe('switching plans in test mode, prorated as Stripe would', () => {
	/** An active Monthly Starter ($49) whose month is half used. */
	async function halfwayThroughStarter() {
		const owner = await newOwner()
		await subscribe(owner.account, 1)
		const sub = (await findCurrentSubscription(owner.user.id))!
		const start = new Date(Date.now() - 15 * 86_400_000)
		const end = new Date(Date.now() + 15 * 86_400_000)
		await db
			.updateTable('subscriptions')
			.set({ billing_date: start, expire_date: end })
			.where('id', '=', sub.id)
			.execute()
		return { ...owner, start, end }
	}

	test('an upgrade charges the difference for the rest of the period and keeps the renewal date', async () => {
		const { user, account, end } = await halfwayThroughStarter()
		const preview = (await previewPlanChange(account, 2))!
		expect(preview.from.name).toBe('Monthly Starter')
		expect(preview.to.name).toBe('Monthly Unlimited')
		const p = preview.proration
		expect(p.unusedShare).toBeCloseTo(0.5, 3)
		expect(p.dueNowCents).toBe(p.chargeCents - p.creditCents)
		expect(p.dueNowCents).toBeGreaterThan(0)

		const choice = await choosePlan(account, 2)
		if (choice.kind !== 'checkout') throw new Error('expected a checkout')
		const id = choice.url.split('/').pop()!
		// what the test page charges is the prorated difference, not the full price
		const checkout = await db
			.selectFrom('checkout_sessions')
			.select('total_cents')
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		expect(Math.abs(checkout.total_cents - p.dueNowCents)).toBeLessThanOrEqual(1)
		await completeTestCheckout(account, id)
		const sub = await findCurrentSubscription(user.id)
		expect(sub).toMatchObject({ active_plan: 2, status: 'active' })
		expect(sub!.expire_date!.getTime()).toBe(end.getTime())
	})

	test('a downgrade owes nothing: the plan changes at once, same renewal date', async () => {
		const { user, account, end } = await halfwayThroughStarter()
		await db
			.updateTable('subscriptions')
			.set({ active_plan: 2 })
			.where('user_id', '=', user.id)
			.execute()
		expect((await previewPlanChange(account, 1))!.proration.dueNowCents).toBeLessThan(0)
		expect(await choosePlan(account, 1)).toMatchObject({ kind: 'changed' })
		const sub = await findCurrentSubscription(user.id)
		expect(sub).toMatchObject({ active_plan: 1, status: 'active' })
		expect(sub!.expire_date!.getTime()).toBe(end.getTime())
	})

	test('nothing to preview without an active plan', async () => {
		const { account } = await newOwner()
		expect(await previewPlanChange(account, 2)).toBeNull()
	})
})

describe('credit packs', () => {
	test('a pack bought through checkout lands in the ledger once', async () => {
		const { user, account } = await newOwner()
		const checkout = await buyCreditPack(account, 5000)
		expect(checkout.url).toMatch(/^\/test-payment\//)
		const session = await completeTestCheckout(account, checkout.id)
		expect(session.success_path).toBe('/purchase')
		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(5000)
		expect(entries).toEqual([
			{
				delta: 5000,
				balance_after: 5000,
				reason: 'purchase',
				reference: `checkout:${checkout.id}:0`,
			},
		])
		const stored = await findCheckout(account, checkout.id)
		expect(stored).toMatchObject({ total_cents: 7900, mode: 'payment' })
	})

	test('negative, absurd or unknown pack sizes are refused and write nothing', async () => {
		const { user, account } = await newOwner()
		for (const credits of [-1000, 0, 1, 999, 10 ** 12, Number.NaN]) {
			expect(await rejection(buyCreditPack(account, credits))).toMatchObject({
				field: 'credits',
				message: 'Choose one of the credit packs shown.',
			})
		}
		const rows = await db
			.selectFrom('checkout_sessions')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()
		expect(rows).toHaveLength(0)
	})
})

describe('who may pay', () => {
	test('team members (admin and editor) get 403 from every billing action', async () => {
		const owner = await newOwner()
		await subscribe(owner.account, 1)
		const pack = await buyCreditPack(owner.account, 1000)
		for (const role of ['admin', 'editor'] as const) {
			const { account } = await newTeamMember(owner.user.id, role)
			expect(account.isTeamMember).toBe(true)
			const actions = [
				() => choosePlan(account, 2),
				() => cancelSubscriptionAtPeriodEnd(account),
				() => resumeSubscription(account),
				() => buyCreditPack(account, 1000),
				() => findTestCheckout(account, pack.id),
				() => completeTestCheckout(account, pack.id),
				() => declineTestCheckout(account, pack.id),
			]
			for (const action of actions) expect(statusOf(await rejection(action()))).toBe(403)
		}
		expect((await findCheckout(owner.account, pack.id)).status).toBe('open')
		expect((await findCurrentSubscription(owner.user.id))?.cancel_at_period_end).toBe(false)
	})

	test("another account's checkout, or a malformed id, is 404", async () => {
		const owner = await newOwner()
		const stranger = await newOwner()
		const pack = await buyCreditPack(owner.account, 1000)
		for (const attempt of [
			() => findTestCheckout(stranger.account, pack.id),
			() => completeTestCheckout(stranger.account, pack.id),
			() => declineTestCheckout(stranger.account, pack.id),
			() => findTestCheckout(owner.account, 'not-a-uuid'),
			() => findTestCheckout(owner.account, '00000000-0000-4000-8000-000000000000'),
		]) {
			expect(statusOf(await rejection(attempt()))).toBe(404)
		}
		expect((await findCheckout(owner.account, pack.id)).status).toBe('open')
		expect((await ledgerOf(stranger.user.id)).balance).toBe(0)
	})

	test('the test-payment page is refused on a public production install unless PAYMENTS=test', async () => {
		const { account } = await newOwner()
		const pack = await buyCreditPack(account, 1000)
		process.env.NODE_ENV = 'production'
		process.env.APP_URL = 'https://leads.example.com'
		resetSingleton('config')
		expect(statusOf(await rejection(findTestCheckout(account, pack.id)))).toBe(404)
		expect(statusOf(await rejection(completeTestCheckout(account, pack.id)))).toBe(404)
		expect(await rejection(buyCreditPack(account, 1000))).toMatchObject({
			message: expect.stringMatching(/Payments are not set up/),
		})

		process.env.PAYMENTS = 'test'
		resetSingleton('config')
		expect((await findTestCheckout(account, pack.id)).status).toBe('open')
	})
})
