import type { Kysely } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import type { CheckoutLineItem, CheckoutSession } from './checkout.server.ts'
import { grantCredits } from './credits.server.ts'
import { periodEnd } from './dates.ts'
import { getPricePlan } from './plans.server.ts'
import { activateSubscription } from './subscriptions.server.ts'
import {
	domainSubscriptionPaidAlready,
	fulfilDomainSubscription,
} from '../domains/subscriptions.server.ts'
import { fulfilInboxOrderPayment, inboxOrderPaidAlready } from '../inboxes/orders.server.ts'

/** How a checkout was paid. */
export type Payment = {
	provider: 'stripe' | 'test'
	customerId?: string | null
	/** the provider's subscription (subscription mode) */
	subscriptionId?: string | null
	/** the paid period; without an end, the plan's interval from the start */
	periodStart: Date
	periodEnd?: Date
}

export type FulfilmentContext = {
	session: CheckoutSession
	item: CheckoutLineItem
	/** the item's position in the checkout (ledger references use it) */
	index: number
	payment: Payment
	actorUserId: string | null
}

/** Delivers one paid line item, inside the transaction that records the payment. */
export type Fulfilment = (db: Kysely<DB>, context: FulfilmentContext) => Promise<void>

/** A plan subscription starts (or replaces the current one). */
async function fulfilPlan(
	db: Kysely<DB>,
	{ session, item, payment, actorUserId }: FulfilmentContext,
) {
	const plan = await getPricePlan(Number(item.data.planId), db)
	if (!plan) throw new Error(`Checkout ${session.id} names unknown plan ${item.data.planId}`)
	await activateSubscription(db, {
		accountId: session.user_id,
		planId: plan.id,
		provider: payment.provider,
		customerId: payment.customerId,
		subscriptionId: payment.subscriptionId,
		// a prorated test-mode switch keeps the period it was priced for
		periodStart:
			typeof item.data.periodStart === 'string'
				? new Date(item.data.periodStart)
				: payment.periodStart,
		periodEnd:
			typeof item.data.periodEnd === 'string'
				? new Date(item.data.periodEnd)
				: (payment.periodEnd ?? periodEnd(payment.periodStart, plan.interval)),
		actorUserId,
		checkoutId: session.id,
	})
}

/** A credit pack: its credits land in the ledger, once per checkout item. */
async function fulfilCreditPack(db: Kysely<DB>, { session, item, index }: FulfilmentContext) {
	await grantCredits(db, {
		accountId: session.user_id,
		amount: Number(item.data.credits) * item.quantity,
		reason: 'purchase',
		reference: `checkout:${session.id}:${index}`,
	})
}

/**
 * Every kind of thing a checkout sells, with its fulfilment. Domain
 * subscriptions and inbox orders add their kind here.
 */
export const FULFILMENTS = {
	plan: fulfilPlan,
	credit_pack: fulfilCreditPack,
	domain_subscription: fulfilDomainSubscription,
	inbox_order: fulfilInboxOrderPayment,
} satisfies Record<string, Fulfilment>

/**
 * Why a paid item cannot be delivered: another checkout already paid for the same thing (the
 * payer sees the sentence; the payment is refunded). Null when it can. Runs before any
 * fulfilment, in the payment's transaction, and takes the locks that make the answer hold
 * until that transaction commits (decision 0064).
 */
export type PaidAlready = (db: Kysely<DB>, context: FulfilmentContext) => Promise<string | null>

/** The kinds that can be bought only once: two checkouts open at once must not both deliver. */
export const PAID_ALREADY: Partial<Record<LineItemKind, PaidAlready>> = {
	domain_subscription: domainSubscriptionPaidAlready,
	inbox_order: inboxOrderPaidAlready,
}

/** The kinds of a domain checkout (members with domain-management:write may pay for them). */
export const DOMAIN_LINE_ITEM_KINDS = ['domain_subscription', 'inbox_order'] as const

export type LineItemKind = keyof typeof FULFILMENTS
