import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { getPricePlan } from './plans.server.ts'
import { changeSubscription, grantPlanCredits, nextCreditGrant } from './subscriptions.server.ts'

/**
 * Marks active subscriptions past their expire_date expired (a cancelled
 * plan at its period end, a test-mode plan nobody renewed, a Stripe plan
 * whose renewal never came). The request context already ignores them; this
 * makes the status say so and audits it.
 */
export async function expireSubscriptions(now = new Date(), db: Kysely<DB> = defaultDb) {
	return db.transaction().execute(async (trx) => {
		const expired = await trx
			.updateTable('subscriptions')
			.set({ status: 'expired', credits_next_grant_at: null, updated_at: now })
			.where('status', '=', 'active')
			.where('expire_date', '<=', now)
			.returning(['id', 'user_id', 'active_plan', 'expire_date', 'cancel_at_period_end'])
			.execute()
		await recordAudit(
			trx,
			expired.map((sub) => ({
				actorUserId: null,
				action: 'billing.subscription.expire',
				targetType: 'subscription',
				targetId: sub.id,
				before: { status: 'active' },
				after: {
					status: 'expired',
					expire_date: sub.expire_date,
					cancel_at_period_end: sub.cancel_at_period_end,
				},
			})),
		)
		return expired
	})
}

/**
 * Monthly plan credits inside a longer period (a yearly plan gets its
 * monthly credits each month). Renewals grant their own first month.
 * Idempotent: each month's grant has its own ledger reference.
 */
export async function grantDuePlanCredits(now = new Date(), db: Kysely<DB> = defaultDb) {
	const due = await db
		.selectFrom('subscriptions')
		.select('id')
		.where('status', '=', 'active')
		.where('credits_next_grant_at', '<=', now)
		.execute()
	let granted = 0
	for (const { id } of due) {
		await db.transaction().execute(async (trx) => {
			const sub = await trx
				.selectFrom('subscriptions')
				.selectAll()
				.where('id', '=', id)
				.where('status', '=', 'active')
				.forUpdate()
				.skipLocked()
				.executeTakeFirst()
			if (!sub?.credits_next_grant_at || !sub.billing_date || !sub.expire_date) return
			const plan = await getPricePlan(sub.active_plan, trx)
			if (!plan) return
			let at: Date | null = sub.credits_next_grant_at
			while (at && at <= now && at < sub.expire_date) {
				await grantPlanCredits(trx, sub, plan, at)
				granted++
				at = nextCreditGrant(sub.billing_date, sub.expire_date, at)
			}
			await changeSubscription(
				trx,
				sub,
				{ credits_next_grant_at: at },
				{ action: 'billing.subscription.monthly_credits', actorUserId: null },
			)
		})
	}
	return granted
}
