import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { listOfferedCreditPacks } from '../billing/credit-pack-prices.server.ts'
import { assertPlatformAdmin } from './access.server.ts'

/**
 * Changes a plan's price and monthly credits. New prices apply to new checkouts only: a
 * changed price clears stripe_price_id, so the next Stripe checkout makes a new price, and
 * running subscriptions keep the price they were sold at until they end.
 */
export async function updatePricePlan(
	account: AccountContext | null,
	input: { planId: number; priceCents: number; monthlyCredits: number },
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	return db.transaction().execute(async (trx) => {
		const plan = await trx
			.selectFrom('price_plans')
			.selectAll()
			.where('id', '=', input.planId)
			.forUpdate()
			.executeTakeFirst()
		if (!plan) throw new FormError('Choose one of the plans.', 'planId')
		const priceChanged = plan.price_cents !== input.priceCents
		const updated = await trx
			.updateTable('price_plans')
			.set({
				price_cents: input.priceCents,
				monthly_credits: input.monthlyCredits,
				...(priceChanged ? { stripe_price_id: null } : {}),
				updated_at: new Date(),
			})
			.where('id', '=', plan.id)
			.returningAll()
			.executeTakeFirstOrThrow()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.plan.update',
			targetType: 'price_plan',
			targetId: String(plan.id),
			before: {
				price_cents: plan.price_cents,
				monthly_credits: plan.monthly_credits,
				stripe_price_id: plan.stripe_price_id,
			},
			after: {
				price_cents: updated.price_cents,
				monthly_credits: updated.monthly_credits,
				stripe_price_id: updated.stripe_price_id,
			},
		})
		return updated
	})
}

/** Sets a credit pack's price (one of CREDIT_PACKS's sizes) for new checkouts. */
export async function updateCreditPackPrice(
	account: AccountContext | null,
	input: { credits: number; priceCents: number },
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	const packs = await listOfferedCreditPacks(db)
	const pack = packs.find((p) => p.credits === input.credits)
	if (!pack) throw new FormError('Choose one of the credit packs.', 'credits')
	return db.transaction().execute(async (trx) => {
		await trx
			.insertInto('credit_pack_prices')
			.values({ credits: pack.credits, price_cents: input.priceCents })
			.onConflict((oc) =>
				oc.column('credits').doUpdateSet({ price_cents: input.priceCents, updated_at: new Date() }),
			)
			.execute()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'admin.credit_pack.update',
			targetType: 'credit_pack',
			targetId: String(pack.credits),
			before: { price_cents: pack.priceCents },
			after: { price_cents: input.priceCents },
		})
		return { credits: pack.credits, priceCents: input.priceCents }
	})
}
