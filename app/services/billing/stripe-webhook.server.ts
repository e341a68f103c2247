import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import {
	eventCheckoutSession,
	eventInvoice,
	eventSubscription,
	retrieveStripeSubscription,
	verifyStripeEvent,
	type StripeCheckoutSession,
	type StripeEvent,
	type StripeInvoice,
	type StripeSubscription,
} from '../../integrations/stripe.server.ts'
import { FormError, isUuid } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'
import { completeCheckout } from './complete-checkout.server.ts'
import { refundOwedCheckout } from './refunds.server.ts'
import { findPlanForStripePrice, getPricePlan } from './plans.server.ts'
import { changeSubscription, startPeriod, type SubscriptionRow } from './subscriptions.server.ts'
import {
	domainInvoicePaid,
	domainPaymentFailed,
	domainSubscriptionDeleted,
	domainSubscriptionUpdated,
	findDomainSubscriptionByProvider,
	type DomainSubscriptionRow,
} from '../domains/renewals.server.ts'
import {
	findInboxOrderByProvider,
	inboxInvoicePaid,
	inboxPaymentFailed,
	inboxSubscriptionDeleted,
	inboxSubscriptionUpdated,
	type InboxOrderRow,
} from '../inboxes/billing.server.ts'

export type WebhookResult = { status: number; message: string }

/**
 * POST /stripe/webhook. The signature is checked on the raw body; each event
 * id is handled once (stripe_events, written in the same transaction as the
 * change, so a failure lets Stripe's retry start over). Events about
 * subscriptions or customers that are not ours are logged and answered 200.
 */
export async function handleStripeWebhook(
	rawBody: string,
	signature: string | null,
	db: Kysely<DB> = defaultDb,
): Promise<WebhookResult> {
	const config = getConfig()
	if (!config.STRIPE_SECRET_KEY || !config.STRIPE_WEBHOOK_SECRET) {
		return { status: 404, message: 'Stripe is not configured' }
	}
	let event: StripeEvent
	try {
		event = await verifyStripeEvent(rawBody, signature ?? '', config.STRIPE_WEBHOOK_SECRET)
	} catch (error) {
		logger.warn({ err: error }, 'Stripe webhook with a bad signature refused')
		return { status: 400, message: 'Invalid signature' }
	}
	const seen = await db
		.selectFrom('stripe_events')
		.select('id')
		.where('id', '=', event.id)
		.executeTakeFirst()
	if (seen) {
		// a redelivery after a refund failed (or a crash): the refund is still owed
		await refundOwedFor(event, db)
		return { status: 200, message: 'Already processed' }
	}

	// Calls to Stripe happen before the transaction, which holds row locks.
	const subscription = await subscriptionOfCompletedCheckout(event)
	await db.transaction().execute(async (trx) => {
		const fresh = await trx
			.insertInto('stripe_events')
			.values({ id: event.id, type: event.type })
			.onConflict((oc) => oc.column('id').doNothing())
			.returning('id')
			.executeTakeFirst()
		if (!fresh) return
		await applyEvent(trx, event, subscription)
	})
	await refundOwedFor(event, db)
	return { status: 200, message: 'OK' }
}

/**
 * A paid checkout the payment's transaction refunded (decision 0064) gets its money back from
 * Stripe now, after the commit. A failure throws: the answer is 500 and Stripe delivers the
 * event again (the job retries too).
 */
async function refundOwedFor(event: StripeEvent, db: Kysely<DB>) {
	if (
		event.type !== 'checkout.session.completed' &&
		event.type !== 'checkout.session.async_payment_succeeded'
	)
		return
	await refundOwedCheckout({ providerSessionId: eventCheckoutSession(event).id }, db)
}

async function subscriptionOfCompletedCheckout(event: StripeEvent) {
	if (
		event.type !== 'checkout.session.completed' &&
		event.type !== 'checkout.session.async_payment_succeeded'
	)
		return null
	const session = eventCheckoutSession(event)
	if (session.mode !== 'subscription' || !session.subscription) return null
	return retrieveStripeSubscription(session.subscription)
}

async function applyEvent(
	db: Kysely<DB>,
	event: StripeEvent,
	subscription: StripeSubscription | null,
) {
	switch (event.type) {
		case 'checkout.session.completed':
		case 'checkout.session.async_payment_succeeded':
			return checkoutCompleted(db, eventCheckoutSession(event), subscription)
		case 'checkout.session.expired':
			return checkoutExpired(db, eventCheckoutSession(event))
		case 'invoice.paid':
			return invoicePaid(db, eventInvoice(event))
		case 'invoice.payment_failed':
			return invoicePaymentFailed(db, eventInvoice(event))
		case 'customer.subscription.updated':
			return subscriptionUpdated(db, eventSubscription(event))
		case 'customer.subscription.deleted':
			return subscriptionDeleted(db, eventSubscription(event))
		default:
			logger.debug({ type: event.type }, 'Stripe event ignored')
	}
}

async function findOurCheckout(db: Kysely<DB>, session: StripeCheckoutSession) {
	const ours = session.metadata?.checkout_session_id ?? session.client_reference_id
	if (!isUuid(ours)) return undefined
	return db
		.selectFrom('checkout_sessions')
		.select(['id', 'status'])
		.where('id', '=', ours)
		.where('provider', '=', 'stripe')
		.where('provider_session_id', '=', session.id)
		.executeTakeFirst()
}

async function checkoutCompleted(
	db: Kysely<DB>,
	session: StripeCheckoutSession,
	subscription: StripeSubscription | null,
) {
	const ours = await findOurCheckout(db, session)
	if (!ours) {
		logger.warn(
			{ session: session.id, customer: session.customer },
			'Stripe checkout.session.completed for a checkout that is not ours: ignored',
		)
		return
	}
	if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') {
		// a delayed payment method: async_payment_succeeded completes it later
		logger.info({ session: session.id }, 'Stripe checkout completed without payment yet')
		return
	}
	const item = subscription?.items.data[0]
	try {
		await completeCheckout(db, {
			id: ours.id,
			actorUserId: null,
			payment: {
				provider: 'stripe',
				customerId: session.customer,
				subscriptionId: subscription?.id ?? null,
				periodStart: item ? new Date(item.current_period_start * 1000) : new Date(),
				periodEnd: item ? new Date(item.current_period_end * 1000) : undefined,
			},
		})
	} catch (error) {
		if (!(error instanceof FormError)) throw error
		logger.error({ session: session.id, err: error }, 'Stripe paid a checkout that is not open')
	}
}

async function checkoutExpired(db: Kysely<DB>, session: StripeCheckoutSession) {
	const ours = await findOurCheckout(db, session)
	if (!ours) return
	await db
		.updateTable('checkout_sessions')
		.set({ status: 'expired', updated_at: new Date() })
		.where('id', '=', ours.id)
		.where('status', '=', 'open')
		.execute()
}

/** What a Stripe subscription pays for: a plan, a domain subscription or an inbox order. */
type Billed =
	| { kind: 'plan'; sub: SubscriptionRow }
	| { kind: 'domain'; sub: DomainSubscriptionRow }
	| { kind: 'inboxes'; order: InboxOrderRow }

/** A renewal's failed payment, told to the account once per invoice (decision 0082). */
function renewalFailure(billed: Billed, invoiceId: string) {
	if (billed.kind === 'inboxes')
		return {
			kind: 'renewal' as const,
			id: invoiceId,
			accountId: billed.order.user_id,
			link: '/inboxes',
		}
	if (billed.kind === 'domain')
		return {
			kind: 'renewal' as const,
			id: invoiceId,
			accountId: billed.sub.user_id,
			link: '/domain-subscriptions',
		}
	return { kind: 'renewal' as const, id: invoiceId, accountId: billed.sub.user_id }
}

/** Ours for a Stripe subscription id, locked; unknown ones are logged. */
async function findBilled(
	db: Kysely<DB>,
	subscriptionId: string | null,
	context: { event: string; customer: string | null },
): Promise<Billed | undefined> {
	if (subscriptionId) {
		const sub = await db
			.selectFrom('subscriptions')
			.selectAll()
			.where('provider_subscription_id', '=', subscriptionId)
			.forUpdate()
			.executeTakeFirst()
		if (sub) return { kind: 'plan', sub }
		const domain = await findDomainSubscriptionByProvider(db, subscriptionId)
		if (domain) return { kind: 'domain', sub: domain }
		const order = await findInboxOrderByProvider(db, subscriptionId)
		if (order) return { kind: 'inboxes', order }
	}
	logger.warn(
		{ ...context, subscription: subscriptionId },
		'Stripe event for an unknown customer or subscription: nothing changed',
	)
	return undefined
}

/** Whether the account already has another active subscription (one at a time). */
async function hasOtherActive(db: Kysely<DB>, sub: SubscriptionRow) {
	const other = await db
		.selectFrom('subscriptions')
		.select('id')
		.where('user_id', '=', sub.user_id)
		.where('status', '=', 'active')
		.where('id', '!=', sub.id)
		.executeTakeFirst()
	return !!other
}

/**
 * invoice.paid: a renewal. The period moves on: a plan's credits are granted (once), a domain
 * subscription or an inbox order is paid through the period's end.
 */
async function invoicePaid(db: Kysely<DB>, invoice: StripeInvoice) {
	const subscriptionId = invoice.parent?.subscription_details?.subscription
	if (!subscriptionId) return // a one-off invoice: checkout.session.completed handles those
	const billed = await findBilled(db, subscriptionId, {
		event: 'invoice.paid',
		customer: invoice.customer,
	})
	if (!billed) return
	const line =
		invoice.lines.data.find(
			(l) => l.parent?.subscription_item_details?.subscription === subscriptionId,
		) ?? invoice.lines.data[0]
	if (!line) return
	const paid = {
		periodStart: new Date(line.period.start * 1000),
		periodEnd: new Date(line.period.end * 1000),
		invoiceId: invoice.id,
		amountPaid: invoice.amount_paid,
	}
	if (billed.kind === 'domain') return domainInvoicePaid(db, billed.sub, paid)
	if (billed.kind === 'inboxes') return inboxInvoicePaid(db, billed.order, paid)
	const sub = billed.sub
	if (sub.status === 'canceled' || (sub.status !== 'active' && (await hasOtherActive(db, sub)))) {
		logger.info({ subscription: subscriptionId }, 'invoice paid for an ended subscription')
		return
	}
	const priceId = line.pricing?.price_details?.price
	const plan =
		(priceId ? await findPlanForStripePrice(db, { id: priceId }) : undefined) ??
		(await getPricePlan(sub.active_plan, db))
	if (!plan) return
	await startPeriod(
		db,
		sub,
		plan,
		{
			periodStart: new Date(line.period.start * 1000),
			periodEnd: new Date(line.period.end * 1000),
			actorUserId: null,
		},
		'billing.subscription.renew',
	)
}

async function invoicePaymentFailed(db: Kysely<DB>, invoice: StripeInvoice) {
	const subscriptionId = invoice.parent?.subscription_details?.subscription
	if (!subscriptionId) return
	const billed = await findBilled(db, subscriptionId, {
		event: 'invoice.payment_failed',
		customer: invoice.customer,
	})
	if (!billed) return
	await notifyJobEnd(db, renewalFailure(billed, invoice.id))
	if (billed.kind === 'domain') return domainPaymentFailed(db, billed.sub, invoice.id)
	if (billed.kind === 'inboxes') return inboxPaymentFailed(db, billed.order, invoice.id)
	const sub = billed.sub
	if (sub.status !== 'active') return
	await changeSubscription(
		db,
		sub,
		{ status: 'past_due' },
		{ action: 'billing.subscription.past_due', actorUserId: null, detail: { invoice: invoice.id } },
	)
}

const STATUSES: Record<string, string> = {
	active: 'active',
	trialing: 'active',
	past_due: 'past_due',
	unpaid: 'past_due',
	paused: 'past_due',
	incomplete: 'incomplete',
	incomplete_expired: 'expired',
	canceled: 'canceled',
}

/** customer.subscription.updated: status, plan, period end and cancel-at-period-end follow Stripe. */
async function subscriptionUpdated(db: Kysely<DB>, remote: StripeSubscription) {
	const billed = await findBilled(db, remote.id, {
		event: 'customer.subscription.updated',
		customer: remote.customer,
	})
	if (!billed) return
	const item = remote.items.data[0]
	if (billed.kind !== 'plan') {
		const mirrored = {
			status: STATUSES[remote.status],
			trialing: remote.status === 'trialing',
			cancelAtPeriodEnd: remote.cancel_at_period_end,
			periodStart: item ? new Date(item.current_period_start * 1000) : null,
			periodEnd: item ? new Date(item.current_period_end * 1000) : null,
		}
		return billed.kind === 'domain'
			? domainSubscriptionUpdated(db, billed.sub, mirrored)
			: inboxSubscriptionUpdated(db, billed.order, mirrored)
	}
	const sub = billed.sub
	if (sub.status === 'canceled') return
	const plan = item ? await findPlanForStripePrice(db, item.price) : undefined
	const changes: Parameters<typeof changeSubscription>[2] = {}
	const status = STATUSES[remote.status] ?? sub.status
	if (status !== sub.status && !(status === 'active' && (await hasOtherActive(db, sub)))) {
		changes.status = status
	}
	if (remote.cancel_at_period_end !== sub.cancel_at_period_end) {
		changes.cancel_at_period_end = remote.cancel_at_period_end
	}
	if (plan && plan.id !== sub.active_plan) changes.active_plan = plan.id
	if (item) {
		// Events can arrive out of order: the paid-through date only moves forward.
		const end = new Date(item.current_period_end * 1000)
		if (!sub.expire_date || end > sub.expire_date) {
			changes.expire_date = end
			changes.billing_date = new Date(item.current_period_start * 1000)
		}
	}
	if (Object.keys(changes).length === 0) return
	await changeSubscription(db, sub, changes, {
		action: 'billing.subscription.sync',
		actorUserId: null,
		detail: { stripe_status: remote.status },
	})
}

/** customer.subscription.deleted: the subscription ended (cancelled at period end, or unpaid). */
async function subscriptionDeleted(db: Kysely<DB>, remote: StripeSubscription) {
	const billed = await findBilled(db, remote.id, {
		event: 'customer.subscription.deleted',
		customer: remote.customer,
	})
	if (!billed) return
	if (billed.kind === 'domain') return domainSubscriptionDeleted(db, billed.sub)
	if (billed.kind === 'inboxes') return inboxSubscriptionDeleted(db, billed.order)
	const sub = billed.sub
	if (sub.status === 'canceled') return
	await changeSubscription(
		db,
		sub,
		{ status: 'canceled', canceled_at: new Date(), cancel_at_period_end: false },
		{ action: 'billing.subscription.canceled', actorUserId: null },
	)
}
