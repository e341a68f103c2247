import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { refundCheckoutSession, stripeConfigured } from '../../integrations/stripe.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'

/**
 * Refunds Stripe owes a payer (decision 0064): a checkout paid for something another checkout
 * had already paid is marked `refunded` in the payment's transaction, and the money goes back
 * here, after that commit (no row lock is held across a call to Stripe). The webhook calls
 * this right after the event's transaction, and again on every redelivery of that event (a
 * failure answers 500, so Stripe delivers it again); the subscription-renewal job sweeps
 * whatever is still owed. Stripe refunds once per checkout (its idempotency key).
 */
export async function refundOwedCheckout(
	where: { id?: string; providerSessionId?: string },
	db: Kysely<DB> = defaultDb,
) {
	let query = db
		.selectFrom('checkout_sessions')
		.select(['id', 'provider_session_id', 'total_cents'])
		.where('status', '=', 'refunded')
		.where('refunded_at', 'is', null)
		.where('provider', '=', 'stripe')
	if (where.id) query = query.where('id', '=', where.id)
	if (where.providerSessionId)
		query = query.where('provider_session_id', '=', where.providerSessionId)
	const owed = await query.executeTakeFirst()
	if (!owed?.provider_session_id) return false
	const { refundId } = await refundCheckoutSession(
		owed.provider_session_id,
		`refund-checkout-${owed.id}`,
	)
	await db.transaction().execute(async (trx) => {
		const done = await trx
			.updateTable('checkout_sessions')
			.set({ refunded_at: new Date(), provider_refund_id: refundId, updated_at: new Date() })
			.where('id', '=', owed.id)
			.where('refunded_at', 'is', null)
			.returning('id')
			.executeTakeFirst()
		if (!done) return // refunded meanwhile by another delivery or the job
		await recordAudit(trx, {
			actorUserId: null,
			action: 'billing.checkout.refunded',
			targetType: 'checkout_session',
			targetId: owed.id,
			after: { provider: 'stripe', refund: refundId, total_cents: owed.total_cents },
		})
	})
	return true
}

/** Every Stripe refund still owed (the subscription-renewal job); one failure does not stop the rest. */
export async function refundOwedCheckouts(db: Kysely<DB> = defaultDb) {
	if (!stripeConfigured()) return 0
	const owed = await db
		.selectFrom('checkout_sessions')
		.select('id')
		.where('status', '=', 'refunded')
		.where('refunded_at', 'is', null)
		.where('provider', '=', 'stripe')
		.orderBy('created_at')
		.limit(100)
		.execute()
	let refunded = 0
	for (const { id } of owed) {
		try {
			if (await refundOwedCheckout({ id }, db)) refunded++
		} catch (error) {
			logger.warn(
				{ err: error, checkout: id },
				'refund of a checkout paid twice failed; retried later',
			)
		}
	}
	return refunded
}
