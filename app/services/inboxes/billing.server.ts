import type { Kysely, Selectable } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB, InboxOrders } from '../../../db/schema.ts'
import {
	cancelStripeSubscription,
	listPaidStripeInvoices,
	refundStripePayment,
	retrieveStripeCheckoutSession,
	retrieveStripeSubscription,
	stripeConfigured,
	stripeInvoicePaymentIntent,
	updateStripeSubscription,
} from '../../integrations/stripe.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { addMonths } from '../billing/dates.ts'
import type { Payment } from '../billing/checkout.server.ts'
import { paymentProvider } from '../billing/payments.server.ts'
import { assertStripeReachable, callStripe } from '../billing/stripe-calls.server.ts'

/**
 * Monthly billing of inboxes (decision 0013). An inbox order is one recurring charge: a Stripe
 * subscription whose quantity is the number of inboxes billed, or in test mode the same renewed
 * by the subscription-renewal job. The order is paid through `paid_through`; each live inbox's
 * `period_end` follows it. An inbox cancelled at period end stops being billed at once (the
 * Stripe quantity drops, without proration: this month is paid) and the job ends it when its
 * period is over.
 *
 * The month paid at checkout starts when the inboxes are delivered (decision 0018): until the
 * order is fulfilled nothing renews it (test mode skips it; the job moves an unfulfilled
 * order's next Stripe charge on before it comes), and fulfilment makes the first paid month
 * run from then, moving the Stripe subscription's next charge to its end.
 */
export type InboxOrderRow = Selectable<InboxOrders>

const LIVE_BILLING = ['active', 'past_due']

/** Right after the order row is written by the checkout's fulfilment: its first paid month. */
export async function startInboxBilling(
	db: Kysely<DB>,
	orderId: string,
	paid: { payment: Payment; unitCents: number; quantity: number },
) {
	const start = paid.payment.periodStart
	await db
		.updateTable('inbox_orders')
		.set({
			billing_status: 'active',
			billing_provider: paid.payment.provider,
			provider_subscription_id: paid.payment.subscriptionId ?? null,
			price_cents: paid.unitCents,
			quantity: paid.quantity,
			billing_date: start,
			paid_through: paid.payment.periodEnd ?? addMonths(start, 1),
		})
		.where('id', '=', orderId)
		.execute()
}

/** Stripe keeps whole seconds: a billing start it holds exactly. */
export function billingStart(now = new Date()) {
	return new Date(Math.floor(now.getTime() / 1000) * 1000)
}

/** Whether the order's charges come from a live Stripe subscription. */
function billsThroughStripe(order: InboxOrderRow) {
	return (
		order.billing_provider === 'stripe' &&
		!!order.provider_subscription_id &&
		LIVE_BILLING.includes(order.billing_status)
	)
}

/**
 * Moves the Stripe subscription's next charge to `at` without charging or prorating: Stripe
 * runs a trial until then (its billing date resets to `at`, the trial's invoice is $0 and,
 * with proration_behavior none, nothing is credited). Returns when Stripe now charges next.
 */
async function moveStripeNextCharge(order: InboxOrderRow, at: Date) {
	assertStripeReachable('This order')
	const id = order.provider_subscription_id!
	const remote = await callStripe(() =>
		updateStripeSubscription(id, {
			trial_end: Math.floor(at.getTime() / 1000),
			proration_behavior: 'none',
		}),
	)
	const item = remote.items.data[0]
	return item ? new Date(item.current_period_end * 1000) : at
}

/**
 * Fulfilment, in its transaction under the order's row lock: the month paid at checkout starts
 * now (`start`). With Stripe the subscription's next charge moves to the month's end first (a
 * failure is a form message and nothing is written; a rollback after Stripe said yes only
 * leaves a pending order's next charge later, as the job's deferral would). Returns the date
 * the order's inboxes are paid through, and whether they end then (the order bills no more).
 */
export async function startFirstPaidMonth(db: Kysely<DB>, order: InboxOrderRow, start: Date) {
	let paidThrough = addMonths(start, 1)
	if (billsThroughStripe(order)) paidThrough = await moveStripeNextCharge(order, paidThrough)
	await changeOrderBilling(
		db,
		order,
		{ billing_date: start, paid_through: paidThrough },
		{ action: 'inboxes.billing.start' },
	)
	return { paidThrough, endsAtPeriodEnd: !LIVE_BILLING.includes(order.billing_status) }
}

/** How long before an unfulfilled order's Stripe charge the job moves it on: a day of retries. */
export const DEFER_AHEAD_MS = 24 * 60 * 60 * 1000

function unfulfilledStripeOrders(db: Kysely<DB>, chargedBy: Date) {
	return db
		.selectFrom('inbox_orders')
		.selectAll()
		.where('billing_provider', '=', 'stripe')
		.where('provider_subscription_id', 'is not', null)
		.where('billing_status', 'in', LIVE_BILLING)
		.where('status', 'in', [0, 1])
		.where('paid_through', '<=', chargedBy)
}

/**
 * Unfulfilled orders billed through Stripe whose next charge is less than DEFER_AHEAD_MS away:
 * the charge moves a month on (Stripe would renew an order nobody has delivered yet); fulfilment
 * later sets it to a month after delivery. Each under the order's row lock, so a fulfilment
 * running at the same time is never overwritten (a locked order is left to the next run).
 * Audited as `inboxes.billing.defer`. Run by the subscription-renewal job.
 */
export async function deferUnfulfilledStripeOrders(now = new Date(), db: Kysely<DB> = defaultDb) {
	if (!stripeConfigured()) return []
	const horizon = new Date(now.getTime() + DEFER_AHEAD_MS)
	const due = await unfulfilledStripeOrders(db, horizon).execute()
	const deferred: { id: string; paid_through: Date }[] = []
	for (const { id } of due) {
		try {
			await db.transaction().execute(async (trx) => {
				const order = await unfulfilledStripeOrders(trx, horizon)
					.where('id', '=', id)
					.forUpdate()
					.skipLocked()
					.executeTakeFirst()
				if (!order?.paid_through) return
				const from = order.paid_through > now ? order.paid_through : now
				const next = await moveStripeNextCharge(order, billingStart(addMonths(from, 1)))
				await changeOrderBilling(
					trx,
					order,
					{ paid_through: next },
					{ action: 'inboxes.billing.defer', detail: { reason: 'not fulfilled yet' } },
				)
				deferred.push({ id, paid_through: next })
			})
		} catch (error) {
			logger.warn({ err: error, order: id }, 'unfulfilled inbox order not deferred in Stripe')
		}
	}
	return deferred
}

/** The date a new inbox of this order is paid through (set when the inbox is made). */
export async function orderPaidThrough(db: Kysely<DB>, orderId: string) {
	const row = await db
		.selectFrom('inbox_orders')
		.select('paid_through')
		.where('id', '=', orderId)
		.executeTakeFirst()
	return row?.paid_through ?? null
}

/**
 * How many inboxes the order bills next month: none once it failed; the ordered count until it
 * is fulfilled; then its inboxes that are active and not cancelled at period end.
 */
export async function billedQuantity(
	db: Kysely<DB>,
	order: Pick<InboxOrderRow, 'id' | 'status' | 'inboxes_per_domain' | 'domain_ids'>,
	change?: { inboxId: string; cancel: boolean },
) {
	if (order.status === 3) return 0
	if (order.status !== 2) return order.inboxes_per_domain * order.domain_ids.length
	const inboxes = await db
		.selectFrom('inboxes')
		.select(['id', 'cancel_at_period_end'])
		.where('order_id', '=', order.id)
		.where('status', '=', 'active')
		.execute()
	return inboxes.filter((i) =>
		change && i.id === change.inboxId ? !change.cancel : !i.cancel_at_period_end,
	).length
}

/**
 * Tells Stripe how many inboxes the order bills from the next invoice on (no proration: the
 * current month is paid). None left: the subscription ends at its period end; some again:
 * it goes on. A call to Stripe, so outside any transaction; a failure is a form message.
 */
export async function setStripeQuantity(order: InboxOrderRow, quantity: number) {
	if (order.billing_provider !== 'stripe' || !order.provider_subscription_id) return
	if (!LIVE_BILLING.includes(order.billing_status)) return
	assertStripeReachable('This inbox')
	const id = order.provider_subscription_id
	const remote = await callStripe(() => retrieveStripeSubscription(id))
	const item = remote.items.data[0]
	await callStripe(() =>
		updateStripeSubscription(
			id,
			quantity === 0
				? { cancel_at_period_end: true }
				: {
						cancel_at_period_end: false,
						proration_behavior: 'none',
						...(item && item.quantity !== quantity ? { items: [{ id: item.id, quantity }] } : {}),
					},
		),
	)
}

/** Records the quantity billed from the next period on. */
export async function recordQuantity(db: Kysely<DB>, order: InboxOrderRow, quantity: number) {
	if (order.quantity === quantity) return
	await db
		.updateTable('inbox_orders')
		.set({ quantity, updated_at: new Date() })
		.where('id', '=', order.id)
		.execute()
}

/** Live inboxes of the order (not cancelled) are paid through `paidThrough`. */
async function extendInboxPeriods(db: Kysely<DB>, orderId: string, paidThrough: Date) {
	await db
		.updateTable('inboxes')
		.set({ period_end: paidThrough, updated_at: new Date() })
		.where('order_id', '=', orderId)
		.where('status', '=', 'active')
		.where('cancel_at_period_end', '=', false)
		.where((eb) => eb.or([eb('period_end', 'is', null), eb('period_end', '<', paidThrough)]))
		.execute()
}

type OrderChanges = Partial<
	Pick<InboxOrderRow, 'billing_status' | 'billing_date' | 'paid_through' | 'quantity'>
>

async function changeOrderBilling(
	db: Kysely<DB>,
	order: InboxOrderRow,
	changes: OrderChanges,
	audit: { action: string; detail?: Record<string, unknown> },
) {
	const keys = Object.keys(changes) as (keyof OrderChanges)[]
	const updated = await db
		.updateTable('inbox_orders')
		.set({ ...changes, updated_at: new Date() })
		.where('id', '=', order.id)
		.returningAll()
		.executeTakeFirstOrThrow()
	if (changes.paid_through) await extendInboxPeriods(db, order.id, changes.paid_through)
	await recordAudit(db, {
		actorUserId: null,
		action: audit.action,
		targetType: 'inbox_order',
		targetId: order.id,
		before: Object.fromEntries(keys.map((k) => [k, order[k]])),
		after: { ...Object.fromEntries(keys.map((k) => [k, updated[k]])), ...audit.detail },
	})
	return updated
}

/** Our inbox order for a Stripe subscription id, locked for the change. */
export async function findInboxOrderByProvider(db: Kysely<DB>, subscriptionId: string) {
	return db
		.selectFrom('inbox_orders')
		.selectAll()
		.where('provider_subscription_id', '=', subscriptionId)
		.forUpdate()
		.executeTakeFirst()
}

/**
 * invoice.paid for the order's subscription: the month is paid; live inboxes go on. A $0
 * invoice charged nothing: it is the trial that moved the next charge (fulfilment or deferral),
 * whose date was recorded from Stripe's answer; a late one must not move it again.
 */
export async function inboxInvoicePaid(
	db: Kysely<DB>,
	order: InboxOrderRow,
	paid: { periodStart: Date; periodEnd: Date; invoiceId: string; amountPaid: number },
) {
	if (order.billing_status === 'canceled' || order.billing_status === 'ended') {
		logger.info({ order: order.id }, 'invoice paid for an inbox order that no longer bills')
		return
	}
	if (paid.amountPaid === 0) return
	const forward = !order.paid_through || paid.periodEnd > order.paid_through
	if (!forward && order.billing_status === 'active') return
	await changeOrderBilling(
		db,
		order,
		{
			billing_status: 'active',
			...(forward ? { billing_date: paid.periodStart, paid_through: paid.periodEnd } : {}),
		},
		{ action: 'inboxes.billing.renew', detail: { invoice: paid.invoiceId } },
	)
}

export async function inboxPaymentFailed(db: Kysely<DB>, order: InboxOrderRow, invoiceId: string) {
	if (order.billing_status !== 'active') return
	await changeOrderBilling(
		db,
		order,
		{ billing_status: 'past_due' },
		{ action: 'inboxes.billing.past_due', detail: { invoice: invoiceId } },
	)
}

/**
 * customer.subscription.updated: past due or active follow Stripe; the paid-through date only
 * moves forward, and not while Stripe runs a trial: that period is one we set (fulfilment or
 * deferral) and recorded from Stripe's answer, and a late event about an earlier one must not
 * move it. Cancelled at period end in Stripe (its dashboard, or our quantity dropping to none):
 * every live inbox of the order ends at its period end.
 */
export async function inboxSubscriptionUpdated(
	db: Kysely<DB>,
	order: InboxOrderRow,
	remote: {
		status: string | undefined
		trialing: boolean
		cancelAtPeriodEnd: boolean
		periodStart: Date | null
		periodEnd: Date | null
	},
) {
	if (order.billing_status === 'canceled' || order.billing_status === 'ended') return
	const changes: OrderChanges = {}
	if (
		(remote.status === 'active' || remote.status === 'past_due') &&
		remote.status !== order.billing_status
	) {
		changes.billing_status = remote.status
	}
	if (
		!remote.trialing &&
		remote.periodEnd &&
		(!order.paid_through || remote.periodEnd > order.paid_through)
	) {
		changes.paid_through = remote.periodEnd
		if (remote.periodStart) changes.billing_date = remote.periodStart
	}
	if (Object.keys(changes).length) {
		await changeOrderBilling(db, order, changes, { action: 'inboxes.billing.sync' })
	}
	if (remote.cancelAtPeriodEnd) await cancelAllAtPeriodEnd(db, order.id)
}

/** customer.subscription.deleted: billing stops; the inboxes end when their paid period does. */
export async function inboxSubscriptionDeleted(db: Kysely<DB>, order: InboxOrderRow) {
	if (order.billing_status === 'canceled') return
	await changeOrderBilling(
		db,
		order,
		{ billing_status: 'canceled', quantity: 0 },
		{ action: 'inboxes.billing.canceled' },
	)
	await cancelAllAtPeriodEnd(db, order.id)
}

async function cancelAllAtPeriodEnd(db: Kysely<DB>, orderId: string) {
	const rows = await db
		.updateTable('inboxes')
		.set({ cancel_at_period_end: true, updated_at: new Date() })
		.where('order_id', '=', orderId)
		.where('status', '=', 'active')
		.where('cancel_at_period_end', '=', false)
		.returning(['id', 'period_end'])
		.execute()
	await recordAudit(
		db,
		rows.map((row) => ({
			actorUserId: null,
			action: 'inboxes.inbox.cancel_at_period_end',
			targetType: 'inbox',
			targetId: row.id,
			before: { cancel_at_period_end: false },
			after: { cancel_at_period_end: true, period_end: row.period_end },
		})),
	)
}

/**
 * Ends inboxes cancelled at period end whose period is over: status cancelled, ended_at. They
 * leave the export and show as cancelled with the date. Idempotent; run by subscription-renewal.
 */
export async function endCancelledInboxes(now = new Date(), db: Kysely<DB> = defaultDb) {
	return db.transaction().execute(async (trx) => {
		const ended = await trx
			.updateTable('inboxes')
			.set({ status: 'cancelled', ended_at: now, updated_at: now })
			.where('status', '=', 'active')
			.where('cancel_at_period_end', '=', true)
			.where('period_end', '<=', now)
			.returning(['id', 'order_id', 'address', 'period_end'])
			.execute()
		await recordAudit(
			trx,
			ended.map((inbox) => ({
				actorUserId: null,
				action: 'inboxes.inbox.end',
				targetType: 'inbox',
				targetId: inbox.id,
				before: { status: 'active' },
				after: { status: 'cancelled', period_end: inbox.period_end, ended_at: now },
			})),
		)
		return ended
	})
}

/**
 * Test mode: fulfilled orders whose month is over and that still bill inboxes are renewed a
 * month at a time (each an audited charge of quantity x price), as Stripe would; an order that
 * bills none (all cancelled) ends instead. An unfulfilled order is never renewed: its paid month
 * starts at fulfilment. Only while this server takes test payments.
 */
export async function renewTestInboxOrders(now = new Date(), db: Kysely<DB> = defaultDb) {
	if (paymentProvider() !== 'test') return []
	const due = await db
		.selectFrom('inbox_orders')
		.select('id')
		.where('billing_provider', '=', 'test')
		.where('billing_status', '=', 'active')
		.where('status', '=', 2)
		.where('paid_through', '<=', now)
		.execute()
	const renewed: { id: string; paid_through: Date; quantity: number }[] = []
	for (const { id } of due) {
		await db.transaction().execute(async (trx) => {
			const order = await trx
				.selectFrom('inbox_orders')
				.selectAll()
				.where('id', '=', id)
				.where('billing_status', '=', 'active')
				.where('status', '=', 2)
				.where('paid_through', '<=', now)
				.forUpdate()
				.skipLocked()
				.executeTakeFirst()
			if (!order?.paid_through) return
			const quantity = await billedQuantity(trx, order)
			if (quantity === 0) {
				await changeOrderBilling(
					trx,
					order,
					{ billing_status: 'ended', quantity: 0 },
					{ action: 'inboxes.billing.end' },
				)
				return
			}
			let start = order.paid_through
			while (start <= now) {
				const end = addMonths(start, 1)
				await recordAudit(trx, {
					actorUserId: null,
					action: 'inboxes.billing.renew',
					targetType: 'inbox_order',
					targetId: order.id,
					before: { paid_through: start },
					after: {
						provider: 'test',
						quantity,
						amount_cents: quantity * order.price_cents,
						billing_date: start,
						paid_through: end,
					},
				})
				start = end
			}
			await trx
				.updateTable('inbox_orders')
				.set({
					quantity,
					billing_date: addMonths(start, -1),
					paid_through: start,
					updated_at: now,
				})
				.where('id', '=', order.id)
				.execute()
			await extendInboxPeriods(trx, order.id, start)
			renewed.push({ id: order.id, paid_through: start, quantity })
		})
	}
	return renewed
}

/**
 * Stripe orders whose billed quantity changed without a user action (fulfilled with fewer
 * inboxes than ordered, or failed): Stripe is told, then the quantity recorded. Run by the job.
 */
export async function reconcileStripeQuantities(db: Kysely<DB> = defaultDb) {
	if (paymentProvider() !== 'stripe') return 0
	// Only fulfilled orders can differ: before fulfilment the ordered count is what Stripe bills.
	const orders = await db
		.selectFrom('inbox_orders as o')
		.selectAll('o')
		.where('o.billing_provider', '=', 'stripe')
		.where('o.provider_subscription_id', 'is not', null)
		.where('o.billing_status', 'in', LIVE_BILLING)
		.where('o.status', '=', 2)
		.where((eb) =>
			eb(
				'o.quantity',
				'!=',
				eb
					.selectFrom('inboxes as i')
					.select((e) => e.fn.countAll<number>().as('n'))
					.whereRef('i.order_id', '=', 'o.id')
					.where('i.status', '=', 'active')
					.where('i.cancel_at_period_end', '=', false),
			),
		)
		.execute()
	let changed = 0
	for (const order of orders) {
		const quantity = await billedQuantity(db, order)
		if (quantity === order.quantity) continue
		try {
			await setStripeQuantity(order, quantity)
			await recordQuantity(db, order, quantity)
			changed++
		} catch (error) {
			logger.warn({ err: error, order: order.id }, 'inbox order quantity not synced with Stripe')
		}
	}
	return changed
}

/** Whether failing the order refunds through Stripe (else there is nothing to call). */
export function refundsThroughStripe(
	order: Pick<InboxOrderRow, 'payment_reference' | 'total_cents'>,
) {
	return !!order.payment_reference?.startsWith('stripe:') && order.total_cents > 0
}

/**
 * A failed order's refund and end of billing. Stripe: the order's subscription is cancelled at
 * once and its latest invoice that charged something refunded (not a deferral's $0 trial
 * invoice; a one-off checkout, from before monthly billing, refunds its payment intent). Test mode: nothing to call. Returns whether Stripe refunded.
 * Safe to call again: the refund carries an idempotency key, and a payment Stripe says is
 * refunded already (the key is kept 24 hours; or refunded by hand) counts as refunded.
 */
export async function refundAndStopInboxBilling(order: InboxOrderRow) {
	if (!refundsThroughStripe(order)) return false
	let intent: string | null = null
	if (order.provider_subscription_id) {
		const id = order.provider_subscription_id
		const sub = await callStripe(() => retrieveStripeSubscription(id))
		const paid = await callStripe(() => listPaidStripeInvoices(id, 10))
		// newest first: the latest invoice that charged (not a deferral's $0 trial invoice)
		const invoice = paid.find((i) => i.amount_paid > 0)?.id
		if (invoice) intent = await callStripe(() => stripeInvoicePaymentIntent(invoice))
		if (sub.status !== 'canceled') await callStripe(() => cancelStripeSubscription(id))
	} else {
		const sessionId = (order.payment_reference ?? '').slice('stripe:'.length)
		const session = await callStripe(() => retrieveStripeCheckoutSession(sessionId))
		intent = session.payment_intent
	}
	if (!intent) return false
	const paymentIntent = intent
	await callStripe(() => refundStripePayment(paymentIntent, `refund-order-${order.id}`))
	return true
}

/** A failed order bills no more (in the transaction that fails it). */
export async function cancelInboxBilling(db: Kysely<DB>, orderId: string) {
	await db
		.updateTable('inbox_orders')
		.set({ billing_status: 'canceled', quantity: 0, updated_at: new Date() })
		.where('id', '=', orderId)
		.where('billing_status', 'in', LIVE_BILLING)
		.execute()
}
