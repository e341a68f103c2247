import { sql, type Kysely, type Selectable } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB, Subscriptions } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { stripeConfigured, updateStripeSubscription } from '../../integrations/stripe.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { formatDate } from '../../utils/money.ts'
import { logger } from '../../utils/logger.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { assertBillingOwner } from './access.server.ts'
import { callStripe } from './stripe-calls.server.ts'
import { grantCredits } from './credits.server.ts'
import { addMonths } from './dates.ts'
import { getPricePlan, type PricePlan } from './plans.server.ts'

export type SubscriptionRow = Selectable<Subscriptions>
export type SubscriptionProvider = 'stripe' | 'test' | 'admin'

/** The account's subscription that counts (active first, else past due). */
export async function findCurrentSubscription(
	accountId: string,
	db: Kysely<DB> = defaultDb,
): Promise<SubscriptionRow | undefined> {
	return db
		.selectFrom('subscriptions')
		.selectAll()
		.where('user_id', '=', accountId)
		.where('status', 'in', ['active', 'past_due'])
		.orderBy(sql`status = 'active'`, 'desc')
		.orderBy('created_at', 'desc')
		.executeTakeFirst()
}

/** SPEC.md section 4: active means status active and expire_date not past. */
export function isActive(sub: SubscriptionRow | undefined, now = new Date()) {
	return !!sub && sub.status === 'active' && !!sub.expire_date && sub.expire_date > now
}

type SubscriptionChanges = Partial<
	Pick<
		SubscriptionRow,
		| 'status'
		| 'active_plan'
		| 'billing_date'
		| 'expire_date'
		| 'cancel_at_period_end'
		| 'canceled_at'
		| 'credits_next_grant_at'
	>
>

/** Updates a subscription and audits what changed (before and after). */
export async function changeSubscription(
	db: Kysely<DB>,
	sub: SubscriptionRow,
	changes: SubscriptionChanges,
	audit: { action: string; actorUserId: string | null; detail?: Record<string, unknown> },
) {
	const keys = Object.keys(changes) as (keyof SubscriptionChanges)[]
	const updated = await db
		.updateTable('subscriptions')
		.set({ ...changes, updated_at: new Date() })
		.where('id', '=', sub.id)
		.returningAll()
		.executeTakeFirstOrThrow()
	await recordAudit(db, {
		actorUserId: audit.actorUserId,
		action: audit.action,
		targetType: 'subscription',
		targetId: sub.id,
		before: Object.fromEntries(keys.map((k) => [k, sub[k]])),
		after: { ...Object.fromEntries(keys.map((k) => [k, updated[k]])), ...audit.detail },
	})
	return updated
}

/**
 * When the next month of plan credits is due inside [start, end): yearly plans
 * get their monthly credits each month; a monthly plan's next grant is its renewal.
 */
export function nextCreditGrant(start: Date, end: Date, after: Date) {
	for (let k = 1; k <= 12; k++) {
		const at = addMonths(start, k)
		if (at >= end) return null
		if (at > after) return at
	}
	return null
}

/** One month of the plan's credits for the month starting `at` (once per subscription and month). */
export async function grantPlanCredits(
	db: Kysely<DB>,
	sub: Pick<SubscriptionRow, 'id' | 'user_id'>,
	plan: PricePlan,
	at: Date,
) {
	if (plan.monthly_credits <= 0) return
	await grantCredits(db, {
		accountId: sub.user_id,
		amount: plan.monthly_credits,
		reason: 'plan',
		reference: `subscription:${sub.id}:${at.toISOString()}`,
		subject: { subscriptionId: sub.id },
	})
}

export type Activation = {
	accountId: string
	planId: number
	provider: SubscriptionProvider
	customerId?: string | null
	subscriptionId?: string | null
	periodStart: Date
	periodEnd: Date
	actorUserId: string | null
	/** the checkout session that paid for it */
	checkoutId?: string
}

/**
 * Starts a paid period (call inside the transaction that records the payment):
 * a new subscription replaces the account's current one (a plan change through
 * checkout), or, for a provider subscription already known, its period moves on.
 * The period's plan credits are granted once.
 */
export async function activateSubscription(db: Kysely<DB>, activation: Activation) {
	const plan = await getPricePlan(activation.planId, db)
	if (!plan) throw new Error(`Unknown price plan ${activation.planId}`)
	if (activation.subscriptionId) {
		const known = await db
			.selectFrom('subscriptions')
			.selectAll()
			.where('provider_subscription_id', '=', activation.subscriptionId)
			.forUpdate()
			.executeTakeFirst()
		if (known) {
			if (known.user_id !== activation.accountId) {
				throw new Error(`Subscription ${activation.subscriptionId} belongs to another account`)
			}
			return startPeriod(db, known, plan, activation, 'billing.subscription.renew')
		}
	}
	const replaced = await db
		.selectFrom('subscriptions')
		.selectAll()
		.where('user_id', '=', activation.accountId)
		.where('status', 'in', ['active', 'past_due'])
		.forUpdate()
		.execute()
	for (const old of replaced) {
		await changeSubscription(
			db,
			old,
			{ status: 'canceled', canceled_at: new Date(), cancel_at_period_end: false },
			{
				action: 'billing.subscription.replace',
				actorUserId: activation.actorUserId,
				detail: { replaced_by_plan: plan.id },
			},
		)
		if (old.provider === 'stripe' && old.provider_subscription_id) {
			logger.warn(
				{ subscription: old.provider_subscription_id },
				'a Stripe subscription was replaced locally; cancel it in Stripe if it still bills',
			)
		}
	}
	const created = await db
		.insertInto('subscriptions')
		.values({
			user_id: activation.accountId,
			active_plan: plan.id,
			status: 'active',
			billing_date: activation.periodStart,
			expire_date: activation.periodEnd,
			provider: activation.provider,
			provider_customer_id: activation.customerId ?? null,
			provider_subscription_id: activation.subscriptionId ?? null,
			credits_next_grant_at: nextCreditGrant(
				activation.periodStart,
				activation.periodEnd,
				activation.periodStart,
			),
		})
		.returningAll()
		.executeTakeFirstOrThrow()
	await recordAudit(db, {
		actorUserId: activation.actorUserId,
		action: 'billing.subscription.activate',
		targetType: 'subscription',
		targetId: created.id,
		before: replaced.length ? { active_plan: replaced[0]!.active_plan } : null,
		after: {
			active_plan: plan.id,
			status: 'active',
			provider: activation.provider,
			billing_date: activation.periodStart,
			expire_date: activation.periodEnd,
			checkout_id: activation.checkoutId ?? null,
		},
	})
	await grantPlanCredits(db, created, plan, activation.periodStart)
	return created
}

/** A known subscription's new paid period (a renewal): dates move, the period's credits come. */
export async function startPeriod(
	db: Kysely<DB>,
	sub: SubscriptionRow,
	plan: PricePlan,
	period: { periodStart: Date; periodEnd: Date; actorUserId: string | null },
	action: string,
) {
	const moved =
		sub.expire_date?.getTime() !== period.periodEnd.getTime() ||
		sub.billing_date?.getTime() !== period.periodStart.getTime() ||
		sub.status !== 'active' ||
		sub.active_plan !== plan.id
	const updated = moved
		? await changeSubscription(
				db,
				sub,
				{
					status: 'active',
					active_plan: plan.id,
					billing_date: period.periodStart,
					expire_date: period.periodEnd,
					credits_next_grant_at: nextCreditGrant(
						period.periodStart,
						period.periodEnd,
						period.periodStart,
					),
				},
				{ action, actorUserId: period.actorUserId },
			)
		: sub
	await grantPlanCredits(db, updated, plan, period.periodStart)
	return updated
}

async function currentActive(account: AccountContext) {
	const accountId = assertBillingOwner(account)
	const sub = await findCurrentSubscription(accountId)
	if (!sub || !isActive(sub)) {
		throw new FormError('You have no active subscription.')
	}
	return sub
}

/** Cancel at period end: access stays until expire_date, then the plan ends. */
export async function cancelSubscriptionAtPeriodEnd(account: AccountContext) {
	const sub = await currentActive(account)
	if (sub.cancel_at_period_end) {
		throw new FormError(`Your subscription already ends on ${formatDate(sub.expire_date)}.`)
	}
	if (sub.provider === 'stripe' && sub.provider_subscription_id && stripeConfigured()) {
		await callStripe(() =>
			updateStripeSubscription(sub.provider_subscription_id!, { cancel_at_period_end: true }),
		)
	}
	return defaultDb
		.transaction()
		.execute((trx) =>
			changeSubscription(
				trx,
				sub,
				{ cancel_at_period_end: true },
				{ action: 'billing.subscription.cancel_at_period_end', actorUserId: account.user.id },
			),
		)
}

/** Takes back a cancellation before the period ends: the plan renews as before. */
export async function resumeSubscription(account: AccountContext) {
	const sub = await currentActive(account)
	if (!sub.cancel_at_period_end) {
		throw new FormError('Your subscription is not cancelled; it renews as usual.')
	}
	if (sub.provider === 'stripe' && sub.provider_subscription_id && stripeConfigured()) {
		await callStripe(() =>
			updateStripeSubscription(sub.provider_subscription_id!, { cancel_at_period_end: false }),
		)
	}
	return defaultDb
		.transaction()
		.execute((trx) =>
			changeSubscription(
				trx,
				sub,
				{ cancel_at_period_end: false },
				{ action: 'billing.subscription.resume', actorUserId: account.user.id },
			),
		)
}
