import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { findTestCheckout, type CheckoutSession, type Payment } from './checkout.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { FULFILMENTS, PAID_ALREADY } from './fulfilments.server.ts'

// Checkout completion: the payment recorded and every line item fulfilled through the
// fulfilment table. It imports the products (through fulfilments.server.ts); they import only
// checkout.server.ts's basic pieces, never this (decision 0070).

/**
 * Records the payment of a checkout and fulfils every line item, all in one
 * transaction. A checkout completes once: completing it again changes nothing.
 */
export async function completeCheckout(
	db: Kysely<DB>,
	request: { id: string; payment: Payment; actorUserId: string | null },
): Promise<{ session: CheckoutSession; alreadyCompleted: boolean }> {
	return inTransaction(db, async (trx) => {
		const session = (await trx
			.selectFrom('checkout_sessions')
			.selectAll()
			.where('id', '=', request.id)
			.forUpdate()
			.executeTakeFirst()) as CheckoutSession | undefined
		if (!session) throw new Error(`No checkout session ${request.id}`)
		if (session.status === 'completed' || session.status === 'refunded') {
			return { session, alreadyCompleted: true }
		}
		if (session.status !== 'open') {
			throw new FormError(`This checkout was ${session.status}; start a new one.`)
		}
		// One purchase, one payment: what another checkout paid meanwhile is refunded, not replaced.
		for (const [index, item] of session.line_items.entries()) {
			const reason = await PAID_ALREADY[item.kind]?.(trx, {
				session,
				item,
				index,
				payment: request.payment,
				actorUserId: request.actorUserId,
			})
			if (reason)
				return {
					session: await refundCheckout(trx, session, reason, request),
					alreadyCompleted: false,
				}
		}
		const completed = (await trx
			.updateTable('checkout_sessions')
			.set({ status: 'completed', completed_at: new Date(), updated_at: new Date() })
			.where('id', '=', session.id)
			.returningAll()
			.executeTakeFirstOrThrow()) as CheckoutSession
		for (const [index, item] of session.line_items.entries()) {
			await FULFILMENTS[item.kind](trx, {
				session: completed,
				item,
				index,
				payment: request.payment,
				actorUserId: request.actorUserId,
			})
		}
		await recordAudit(trx, {
			actorUserId: request.actorUserId,
			action: 'billing.checkout.complete',
			targetType: 'checkout_session',
			targetId: session.id,
			before: { status: session.status },
			after: {
				status: 'completed',
				provider: request.payment.provider,
				total_cents: session.total_cents,
				provider_subscription_id: request.payment.subscriptionId ?? null,
			},
		})
		return { session: completed, alreadyCompleted: false }
	})
}

/**
 * A paid checkout whose purchase another checkout had already paid: nothing is delivered and
 * the payment is given back. Test mode records the refund at once (no money moved); a Stripe
 * refund is owed until refundOwedCheckout gets it from Stripe, after this transaction.
 */
async function refundCheckout(
	trx: Kysely<DB>,
	session: CheckoutSession,
	reason: string,
	request: { payment: Payment; actorUserId: string | null },
) {
	const refunded = (await trx
		.updateTable('checkout_sessions')
		.set({
			status: 'refunded',
			refund_reason: reason,
			refunded_at: request.payment.provider === 'test' ? new Date() : null,
			updated_at: new Date(),
		})
		.where('id', '=', session.id)
		.returningAll()
		.executeTakeFirstOrThrow()) as CheckoutSession
	logger.warn(
		{ checkout: session.id, provider: request.payment.provider, reason },
		'checkout paid for something already paid: refunded',
	)
	await recordAudit(trx, {
		actorUserId: request.actorUserId,
		action: 'billing.checkout.refund',
		targetType: 'checkout_session',
		targetId: session.id,
		before: { status: session.status },
		after: {
			status: 'refunded',
			reason,
			provider: request.payment.provider,
			total_cents: session.total_cents,
			provider_subscription_id: request.payment.subscriptionId ?? null,
		},
	})
	return refunded
}

/** The payer completes a test checkout on the test-payment page. */
export async function completeTestCheckout(account: AccountContext, id: string) {
	const session = await findTestCheckout(account, id)
	if (session.status !== 'open') {
		throw new FormError(`This checkout was already ${session.status}.`)
	}
	const { session: completed } = await completeCheckout(defaultDb, {
		id: session.id,
		payment: { provider: 'test', periodStart: new Date() },
		actorUserId: account.user.id,
	})
	return completed
}
