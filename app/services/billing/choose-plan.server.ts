import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import {
	retrieveStripeSubscription,
	updateStripeSubscription,
} from '../../integrations/stripe.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { assertBillingOwner } from './access.server.ts'
import { createCheckout, type CheckoutOptions } from './checkout.server.ts'
import { paymentProvider } from './payments.server.ts'
import { prorate, type Proration } from './plan-change.ts'
import { formatDate } from '../../utils/money.ts'
import { ensureStripePrice, getPricePlan, type PricePlan } from './plans.server.ts'
import { callStripe } from './stripe-calls.server.ts'
import {
	changeSubscription,
	findCurrentSubscription,
	isActive,
	type SubscriptionRow,
} from './subscriptions.server.ts'

export type PlanChoice =
	| { kind: 'checkout'; url: string; provider: 'stripe' | 'test' }
	| { kind: 'changed'; plan: PricePlan }

export type PlanChangePreview = {
	from: { id: number; name: string }
	to: { id: number; name: string; interval: string; priceCents: number }
	provider: 'stripe' | 'test'
	proration: Proration
}

/**
 * What switching the active plan to `planId` costs, before the owner confirms (decision 0028):
 * the current plan's unused time credited against the new plan for the rest of the period, as
 * Stripe prorates. Null when there is no active plan to switch from (a plain subscribe).
 */
export async function previewPlanChange(
	account: AccountContext,
	planId: number,
	now = new Date(),
): Promise<PlanChangePreview | null> {
	const accountId = assertBillingOwner(account)
	const plan = await getPricePlan(planId)
	if (!plan) throw new FormError('Choose one of the plans shown.', 'planId')
	const current = await findCurrentSubscription(accountId)
	if (!current || !isActive(current) || !current.billing_date || !current.expire_date) return null
	if (current.active_plan === plan.id) {
		throw new FormError(`You are already on the ${plan.name} plan.`, 'planId')
	}
	const from = await getPricePlan(current.active_plan)
	if (!from) return null
	const provider = paymentProvider()
	if (!provider) return null
	return {
		from: { id: from.id, name: from.name },
		to: { id: plan.id, name: plan.name, interval: plan.interval, priceCents: plan.price_cents },
		provider,
		proration: prorate(
			{ plan: from, billingDate: current.billing_date, expireDate: current.expire_date },
			plan,
			now,
		),
	}
}

/**
 * Subscribe (no active plan) or change plan (another plan than the current
 * one). A new subscription, and a plan change paid on the test-payment page,
 * go through checkout; a Stripe subscription changes its price in place
 * (Stripe prorates).
 */
export async function choosePlan(
	account: AccountContext,
	planId: number,
	options: CheckoutOptions = {},
): Promise<PlanChoice> {
	const accountId = assertBillingOwner(account)
	const plan = await getPricePlan(planId)
	if (!plan) throw new FormError('Choose one of the plans shown.', 'planId')
	if (account.isLTD) {
		throw new FormError('Your lifetime deal already includes every feature.', 'planId')
	}
	const current = await findCurrentSubscription(accountId)
	if (current && isActive(current) && current.active_plan === plan.id) {
		throw new FormError(`You are already on the ${plan.name} plan.`, 'planId')
	}
	const provider = paymentProvider()
	if (
		current?.provider === 'stripe' &&
		current.provider_subscription_id &&
		provider === 'stripe' &&
		isActive(current)
	) {
		await changeStripePlan(account, current, plan)
		return { kind: 'changed', plan }
	}
	// Test mode prices a switch as Stripe would: the prorated difference is paid now, and the
	// new plan keeps the current renewal date (another interval starts a new period).
	const switching = provider === 'test' ? await previewPlanChange(account, plan.id) : null
	if (switching && switching.proration.dueNowCents <= 0) {
		await switchInPlace(account, current!, plan, switching.proration)
		return { kind: 'changed', plan }
	}
	const stripePriceId =
		provider === 'stripe' ? await callStripe(() => ensureStripePrice(db, plan)) : null
	const checkout = await createCheckout(
		account,
		{
			mode: 'subscription',
			items: [
				{
					kind: 'plan',
					description: switching
						? `Switch to the ${plan.name} plan (prorated until ${formatDate(switching.proration.periodEnd)})`
						: `${plan.name} plan`,
					quantity: 1,
					unitAmountCents: switching ? switching.proration.dueNowCents : plan.price_cents,
					interval: plan.interval === 'year' ? 'year' : 'month',
					stripePriceId,
					data: switching
						? {
								planId: plan.id,
								periodStart: switching.proration.periodStart.toISOString(),
								periodEnd: switching.proration.periodEnd.toISOString(),
							}
						: { planId: plan.id },
				},
			],
			// Without Stripe the plan is active as soon as the test payment completes;
			// with Stripe, /subscription waits for the webhook.
			successPath: provider === 'stripe' ? '/subscription' : '/',
			cancelPath: '/subscription',
		},
		options,
	)
	return { kind: 'checkout', url: checkout.url, provider: checkout.provider }
}

async function changeStripePlan(account: AccountContext, sub: SubscriptionRow, plan: PricePlan) {
	const updated = await callStripe(async () => {
		const price = await ensureStripePrice(db, plan)
		const remote = await retrieveStripeSubscription(sub.provider_subscription_id!)
		const item = remote.items.data[0]
		if (!item) throw new Error(`Stripe subscription ${remote.id} has no items`)
		return updateStripeSubscription(remote.id, {
			items: [{ id: item.id, price }],
			proration_behavior: 'create_prorations',
			cancel_at_period_end: false,
			metadata: { plan_id: String(plan.id) },
		})
	})
	const item = updated.items.data[0]
	await db.transaction().execute((trx) =>
		changeSubscription(
			trx,
			sub,
			{
				active_plan: plan.id,
				cancel_at_period_end: false,
				...(item ? { expire_date: new Date(item.current_period_end * 1000) } : {}),
			},
			{ action: 'billing.subscription.change_plan', actorUserId: account.user.id },
		),
	)
}

/** A test-mode switch with nothing to pay (a downgrade): the plan changes now, same period. */
async function switchInPlace(
	account: AccountContext,
	sub: SubscriptionRow,
	plan: PricePlan,
	proration: Proration,
) {
	await db.transaction().execute((trx) =>
		changeSubscription(
			trx,
			sub,
			{
				active_plan: plan.id,
				cancel_at_period_end: false,
				billing_date: proration.periodStart,
				expire_date: proration.periodEnd,
			},
			{ action: 'billing.subscription.change_plan', actorUserId: account.user.id },
		),
	)
}
