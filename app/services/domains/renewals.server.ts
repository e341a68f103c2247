import type { Kysely, Selectable } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB, DomainSubscriptions } from '../../../db/schema.ts'
import { logger } from '../../utils/logger.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { addMonths } from '../billing/dates.ts'
import { paymentProvider } from '../billing/payments.server.ts'

/**
 * Renewals of domain subscriptions (decision 0013): a Stripe subscription renews through the
 * webhook (invoice.paid moves the period on, customer.subscription.updated and .deleted mirror
 * Stripe); a test-mode one is renewed by the subscription-renewal job, one month at a time,
 * unless it was cancelled at period end. The domain's status follows: active while a
 * subscription is live, expired otherwise (which ends forwarding and inbox ordering).
 */
export type DomainSubscriptionRow = Selectable<DomainSubscriptions>

const LIVE = ['active', 'past_due']

/** Our domain subscription for a Stripe subscription id, locked for the change. */
export async function findDomainSubscriptionByProvider(db: Kysely<DB>, subscriptionId: string) {
	return db
		.selectFrom('domain_subscriptions')
		.selectAll()
		.where('provider_subscription_id', '=', subscriptionId)
		.orderBy('created_at', 'desc')
		.forUpdate()
		.executeTakeFirst()
}

type Changes = Partial<
	Pick<DomainSubscriptionRow, 'status' | 'billing_date' | 'expire_date' | 'cancel_at_period_end'>
>

async function changeDomainSubscription(
	db: Kysely<DB>,
	sub: DomainSubscriptionRow,
	changes: Changes,
	audit: { action: string; detail?: Record<string, unknown> },
) {
	const keys = Object.keys(changes) as (keyof Changes)[]
	const updated = await db
		.updateTable('domain_subscriptions')
		.set({ ...changes, updated_at: new Date() })
		.where('id', '=', sub.id)
		.returningAll()
		.executeTakeFirstOrThrow()
	await recordAudit(db, {
		actorUserId: null,
		action: audit.action,
		targetType: 'domain_subscription',
		targetId: sub.id,
		before: Object.fromEntries(keys.map((k) => [k, sub[k]])),
		after: { ...Object.fromEntries(keys.map((k) => [k, updated[k]])), ...audit.detail },
	})
	await syncDomainStatus(db, sub.domain_id)
	return updated
}

/**
 * The domain is active while one of its subscriptions is live, expired otherwise. The forwarding
 * table only holds active domains, and the trigger on domains refreshes it in every process.
 */
export async function syncDomainStatus(db: Kysely<DB>, domainId: string, now = new Date()) {
	const live = await db
		.selectFrom('domain_subscriptions')
		.select('id')
		.where('domain_id', '=', domainId)
		.where('status', 'in', LIVE)
		.where('expire_date', '>', now)
		.executeTakeFirst()
	await db
		.updateTable('domains')
		.set({ status: live ? 'active' : 'expired', updated_at: now })
		.where('id', '=', domainId)
		.where('status', '!=', live ? 'active' : 'expired')
		.execute()
}

/** Another live subscription of the same domain (one live subscription per domain). */
async function hasOtherLive(db: Kysely<DB>, sub: DomainSubscriptionRow) {
	const other = await db
		.selectFrom('domain_subscriptions')
		.select('id')
		.where('domain_id', '=', sub.domain_id)
		.where('status', 'in', LIVE)
		.where('id', '!=', sub.id)
		.executeTakeFirst()
	return !!other
}

/** invoice.paid for the domain's Stripe subscription: the paid period becomes the current one. */
export async function domainInvoicePaid(
	db: Kysely<DB>,
	sub: DomainSubscriptionRow,
	paid: { periodStart: Date; periodEnd: Date; invoiceId: string },
) {
	if (sub.status === 'canceled' || (!LIVE.includes(sub.status) && (await hasOtherLive(db, sub)))) {
		logger.info({ subscription: sub.id }, 'invoice paid for an ended domain subscription')
		return
	}
	// The same invoice again (under another event id), or an older one: nothing moves back.
	const forward = !sub.expire_date || paid.periodEnd > sub.expire_date
	if (!forward && sub.status === 'active') return
	await changeDomainSubscription(
		db,
		sub,
		{
			status: 'active',
			...(forward ? { billing_date: paid.periodStart, expire_date: paid.periodEnd } : {}),
		},
		{ action: 'domains.subscription.renew', detail: { invoice: paid.invoiceId } },
	)
}

/** invoice.payment_failed: past due until Stripe's retries succeed or it gives up (.deleted). */
export async function domainPaymentFailed(
	db: Kysely<DB>,
	sub: DomainSubscriptionRow,
	invoiceId: string,
) {
	if (sub.status !== 'active') return
	await changeDomainSubscription(
		db,
		sub,
		{ status: 'past_due' },
		{ action: 'domains.subscription.past_due', detail: { invoice: invoiceId } },
	)
}

/**
 * customer.subscription.updated: status and cancel-at-period-end follow Stripe; the paid-through
 * date only moves forward, since Stripe does not order its events.
 */
export async function domainSubscriptionUpdated(
	db: Kysely<DB>,
	sub: DomainSubscriptionRow,
	remote: {
		status: string | undefined
		cancelAtPeriodEnd: boolean
		periodStart: Date | null
		periodEnd: Date | null
	},
) {
	if (sub.status === 'canceled') return
	const changes: Changes = {}
	if (remote.status && remote.status !== sub.status) {
		if (!(LIVE.includes(remote.status) && (await hasOtherLive(db, sub))))
			changes.status = remote.status
	}
	if (remote.cancelAtPeriodEnd !== sub.cancel_at_period_end) {
		changes.cancel_at_period_end = remote.cancelAtPeriodEnd
	}
	if (remote.periodEnd && (!sub.expire_date || remote.periodEnd > sub.expire_date)) {
		changes.expire_date = remote.periodEnd
		if (remote.periodStart) changes.billing_date = remote.periodStart
	}
	if (Object.keys(changes).length === 0) return
	await changeDomainSubscription(db, sub, changes, { action: 'domains.subscription.sync' })
}

/** customer.subscription.deleted: the subscription ended, and so do forwarding and ordering. */
export async function domainSubscriptionDeleted(db: Kysely<DB>, sub: DomainSubscriptionRow) {
	if (sub.status === 'canceled') return
	await changeDomainSubscription(
		db,
		sub,
		{ status: 'canceled', cancel_at_period_end: false },
		{ action: 'domains.subscription.canceled' },
	)
}

/**
 * The job runs every 5 minutes: a period ending before its next run is renewed now (its new
 * period still starts at the old end), so a renewing domain never stops forwarding meanwhile.
 */
export const RENEW_AHEAD_MS = 10 * 60_000

/**
 * Test mode (no Stripe, so no card to charge): the subscription-renewal job renews every
 * test-mode subscription at its period end unless it was cancelled, a month at a time (a server
 * that was off for longer catches up, one audited period each), as Stripe would charge the
 * card. Only while this server takes test payments: a test-mode subscription on a server that
 * now uses Stripe ends at its period end instead. Idempotent.
 */
export async function renewTestDomainSubscriptions(now = new Date(), db: Kysely<DB> = defaultDb) {
	if (paymentProvider() !== 'test') return []
	const horizon = new Date(now.getTime() + RENEW_AHEAD_MS)
	const due = await db
		.selectFrom('domain_subscriptions')
		.select('id')
		.where('provider', '=', 'test')
		.where('status', '=', 'active')
		.where('cancel_at_period_end', '=', false)
		.where('expire_date', '<=', horizon)
		.execute()
	const renewed: { id: string; domain_id: string; expire_date: Date }[] = []
	for (const { id } of due) {
		await db.transaction().execute(async (trx) => {
			const sub = await trx
				.selectFrom('domain_subscriptions')
				.selectAll()
				.where('id', '=', id)
				.where('status', '=', 'active')
				.where('cancel_at_period_end', '=', false)
				.where('expire_date', '<=', horizon)
				.forUpdate()
				.skipLocked()
				.executeTakeFirst()
			if (!sub?.expire_date) return
			let start = sub.expire_date
			while (start <= horizon) {
				const end = addMonths(start, 1)
				await trx
					.updateTable('domain_subscriptions')
					.set({ billing_date: start, expire_date: end, updated_at: now })
					.where('id', '=', sub.id)
					.execute()
				await recordAudit(trx, {
					actorUserId: null,
					action: 'domains.subscription.renew',
					targetType: 'domain_subscription',
					targetId: sub.id,
					before: { expire_date: start },
					after: {
						provider: 'test',
						price_cents: sub.price_cents,
						billing_date: start,
						expire_date: end,
					},
				})
				start = end
			}
			await syncDomainStatus(trx, sub.domain_id, now)
			renewed.push({ id: sub.id, domain_id: sub.domain_id, expire_date: start })
		})
	}
	return renewed
}
