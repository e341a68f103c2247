import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { formatDate } from '../../utils/money.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { createCheckout, type CheckoutOptions } from '../billing/checkout.server.ts'
import { periodEnd } from '../billing/dates.ts'
import type { FulfilmentContext } from '../billing/checkout.server.ts'
import { assertStripeReachable, callStripe } from '../billing/stripe-calls.server.ts'
import { updateStripeSubscription } from '../../integrations/stripe.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { domainAccount } from './access.server.ts'
import { findDomain, hasLiveSubscription, paidFor, visibleDomains } from './domains.server.ts'

export function domainPriceCents() {
	return getConfig().DOMAIN_PRICE_CENTS
}

/** Every domain the user sees with its latest subscription (renewal date, cancel state). */
export async function listDomainSubscriptions(
	account: AccountContext | null,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	return db
		.selectFrom('domains')
		.leftJoinLateral(
			(eb) =>
				eb
					.selectFrom('domain_subscriptions as s')
					.select([
						's.id',
						's.status',
						's.price_cents',
						's.billing_date',
						's.expire_date',
						's.cancel_at_period_end',
						's.provider',
					])
					.whereRef('s.domain_id', '=', 'domains.id')
					.orderBy('s.created_at', 'desc')
					.limit(1)
					.as('sub'),
			(join) => join.onTrue(),
		)
		.select([
			'domains.id as domain_id',
			'domains.name',
			'domains.status as domain_status',
			'sub.id as subscription_id',
			'sub.status',
			'sub.price_cents',
			'sub.billing_date',
			'sub.expire_date',
			'sub.cancel_at_period_end',
			'sub.provider',
		])
		.where(visibleDomains(acting))
		.orderBy('domains.name')
		.execute()
}

/** Opens the checkout for a month of a domain's subscription (a recurring item). */
export async function startDomainSubscription(
	account: AccountContext | null,
	domainId: string,
	options: CheckoutOptions = {},
) {
	const acting = domainAccount(account, 'change')
	const domain = await findDomain(acting, domainId)
	if (await hasLiveSubscription(defaultDb, domain.id)) {
		throw new FormError(`${domain.name} already has an active subscription.`)
	}
	return createCheckout(
		acting,
		{
			mode: 'subscription',
			items: [
				{
					kind: 'domain_subscription',
					description: `Domain subscription: ${domain.name}`,
					quantity: 1,
					unitAmountCents: domainPriceCents(),
					interval: 'month',
					data: { domainId: domain.id, domain: domain.name },
				},
			],
			successPath: '/domain-subscriptions',
			cancelPath: '/domain-subscriptions',
		},
		options,
	)
}

/**
 * At payment (decision 0064): a domain that got a live subscription from another checkout
 * since this one opened is not subscribed twice; the payment is refunded instead of replacing
 * the first subscription. Locks the domain row (its fulfilment does too), so of two payments at
 * once the second waits and sees the first.
 */
export async function domainSubscriptionPaidAlready(
	db: Kysely<DB>,
	{ session, item }: FulfilmentContext,
) {
	const domain = await db
		.selectFrom('domains')
		.select(['id', 'name'])
		.where('id', '=', String(item.data.domainId))
		.where('user_id', '=', session.user_id)
		.forUpdate()
		.executeTakeFirst()
	if (!domain || !(await hasLiveSubscription(db, domain.id))) return null
	return `${domain.name} was already subscribed from another checkout, so this payment was refunded.`
}

/** Fulfilment of a paid domain_subscription line item: the subscription starts, the domain is active. */
export async function fulfilDomainSubscription(
	db: Kysely<DB>,
	{ session, item, payment, actorUserId }: FulfilmentContext,
) {
	const domainId = String(item.data.domainId)
	const domain = await db
		.selectFrom('domains')
		.select(['id', 'name'])
		.where('id', '=', domainId)
		.where('user_id', '=', session.user_id)
		.forUpdate()
		.executeTakeFirst()
	if (!domain) throw new Error(`Checkout ${session.id} names unknown domain ${domainId}`)
	const start = payment.periodStart
	const end = payment.periodEnd ?? periodEnd(start, 'month')
	// A domain has one live subscription: one paid while another was live replaces it.
	await db
		.updateTable('domain_subscriptions')
		.set({ status: 'canceled', updated_at: new Date() })
		.where('domain_id', '=', domain.id)
		.where('status', 'in', ['active', 'past_due'])
		.execute()
	const sub = await db
		.insertInto('domain_subscriptions')
		.values({
			user_id: session.user_id,
			domain_id: domain.id,
			status: 'active',
			price_cents: item.unitAmountCents,
			billing_date: start,
			expire_date: end,
			provider: payment.provider,
			provider_subscription_id: payment.subscriptionId ?? null,
			checkout_session_id: session.id,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.updateTable('domains')
		.set({ status: 'active', updated_at: new Date() })
		.where('id', '=', domain.id)
		.execute()
	await recordAudit(db, {
		actorUserId,
		action: 'domains.subscription.start',
		targetType: 'domain_subscription',
		targetId: sub.id,
		after: { domain: domain.name, expire_date: end, price_cents: item.unitAmountCents },
	})
}

async function findSubscription(acting: ActingAccount, id: string, db: Kysely<DB>) {
	if (!isUuid(id)) notFound('This subscription')
	const row = await db
		.selectFrom('domain_subscriptions')
		.innerJoin('domains', 'domains.id', 'domain_subscriptions.domain_id')
		.selectAll('domain_subscriptions')
		.select('domains.name')
		.where('domain_subscriptions.id', '=', id)
		.where(visibleDomains(acting))
		.executeTakeFirst()
	if (!row) notFound('This subscription')
	return row
}

/** Cancel (or take back the cancellation of) a domain subscription at its period end. */
export async function setDomainSubscriptionCancel(
	account: AccountContext | null,
	id: string,
	cancel: boolean,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	const sub = await findSubscription(acting, id, db)
	if (sub.status !== 'active' || !sub.expire_date || sub.expire_date <= new Date()) {
		throw new FormError(`The subscription of ${sub.name} is not active.`)
	}
	if (sub.cancel_at_period_end === cancel) {
		throw new FormError(
			cancel
				? `${sub.name} already ends on ${formatDate(sub.expire_date)}.`
				: `${sub.name} is not cancelled; it renews as usual.`,
		)
	}
	if (sub.provider === 'stripe' && sub.provider_subscription_id) {
		assertStripeReachable(`The subscription of ${sub.name}`)
		await callStripe(() =>
			updateStripeSubscription(sub.provider_subscription_id!, { cancel_at_period_end: cancel }),
		)
	}
	await db.transaction().execute(async (trx) => {
		await trx
			.updateTable('domain_subscriptions')
			.set({ cancel_at_period_end: cancel, updated_at: new Date() })
			.where('id', '=', sub.id)
			.execute()
		await recordAudit(trx, {
			actorUserId: acting.user.id,
			action: cancel ? 'domains.subscription.cancel_at_period_end' : 'domains.subscription.resume',
			targetType: 'domain_subscription',
			targetId: sub.id,
			before: { cancel_at_period_end: sub.cancel_at_period_end },
			after: { cancel_at_period_end: cancel },
		})
	})
	return sub
}

/**
 * Ends domain subscriptions past their expire_date (cancelled, or never renewed): the
 * subscription is expired and the domain, with no other live subscription, loses forwarding
 * (its status is no longer active) and inbox ordering. Idempotent; run by subscription-renewal.
 */
export async function expireDomainSubscriptions(now = new Date(), db: Kysely<DB> = defaultDb) {
	return db.transaction().execute(async (trx) => {
		const expired = await trx
			.updateTable('domain_subscriptions')
			.set({ status: 'expired', updated_at: now })
			.where('status', 'in', ['active', 'past_due'])
			.where('expire_date', '<=', now)
			.returning(['id', 'domain_id', 'expire_date'])
			.execute()
		if (expired.length === 0) return expired
		await trx
			.updateTable('domains')
			.set({ status: 'expired', updated_at: now })
			.where(
				'id',
				'in',
				expired.map((e) => e.domain_id),
			)
			.where((eb) => eb.not(paidFor(eb, now)))
			.execute()
		await recordAudit(
			trx,
			expired.map((sub) => ({
				actorUserId: null,
				action: 'domains.subscription.expire',
				targetType: 'domain_subscription',
				targetId: sub.id,
				after: { status: 'expired', expire_date: sub.expire_date },
			})),
		)
		return expired
	})
}
