import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { domainAccount } from '../domains/access.server.ts'
import type { InboxOrderRow } from './billing.server.ts'
import { refundAndFailOrder } from './fulfilment.server.ts'
import { visibleOrders } from './orders.server.ts'

export const CANCELLED_REASON = 'Cancelled at your request.'

/** Why the customer may no longer cancel this order (null: they may). */
export function whyNotCancellable(order: Pick<InboxOrderRow, 'status' | 'refunded_at'>) {
	if (order.status === 1) return 'its setup has started; ask us to cancel it'
	if (order.status === 2) return 'it is delivered already'
	// failed or cancelled, its refund recorded; one failed without a recorded refund is refunded
	if (order.status === 3 && order.refunded_at) return 'it is cancelled and refunded already'
	return null
}

/**
 * The customer cancels an inbox order that is still waiting for setup (decision 0090): the same
 * fail-and-refund as an admin's (refundAndFailOrder: billing stopped, the payment refunded once,
 * audited with the customer as actor, one notification). Checked under the order's row lock, so
 * an admin starting the setup at the same moment wins or loses cleanly.
 */
export async function cancelInboxOrder(
	account: AccountContext | null,
	id: string,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	if (!isUuid(id)) notFound('This order')
	const order = await db
		.selectFrom('inbox_orders')
		.select(['id', 'status', 'refunded_at'])
		.where('id', '=', id)
		.where(visibleOrders(acting))
		.executeTakeFirst()
	if (!order) notFound('This order')
	await refundAndFailOrder(db, id, CANCELLED_REASON, acting.user.id, (locked) => {
		const why = whyNotCancellable(locked)
		if (why) throw new FormError(`This order cannot be cancelled: ${why}.`)
	})
}
