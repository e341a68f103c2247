import type { Kysely } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import type { Fulfilment, FulfilmentContext, LineItemKind, PaidAlready } from './checkout.server.ts'
import { grantCredits } from './credits.server.ts'
import { periodEnd } from './dates.ts'
import { getPricePlan } from './plans.server.ts'
import { activateSubscription } from './subscriptions.server.ts'
import {
	domainSubscriptionPaidAlready,
	fulfilDomainSubscription,
} from '../domains/subscriptions.server.ts'
import { fulfilInboxOrderPayment, inboxOrderPaidAlready } from '../inboxes/orders.server.ts'

// The fulfilment table: what each product does when paid. Products depend on checkout's basic
// pieces (checkout.server.ts), never on this table or on checkout completion, which imports it
// (decision 0070).

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
		subject: { checkoutSessionId: session.id },
	})
}

/** Every kind of thing a checkout sells (LINE_ITEM_KINDS), with its fulfilment. */
export const FULFILMENTS: Record<LineItemKind, Fulfilment> = {
	plan: fulfilPlan,
	credit_pack: fulfilCreditPack,
	domain_subscription: fulfilDomainSubscription,
	inbox_order: fulfilInboxOrderPayment,
}

/** The kinds that can be bought only once: two checkouts open at once must not both deliver. */
export const PAID_ALREADY: Partial<Record<LineItemKind, PaidAlready>> = {
	domain_subscription: domainSubscriptionPaidAlready,
	inbox_order: inboxOrderPaidAlready,
}
