import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { createStripePrice } from '../../integrations/stripe.server.ts'

export type PricePlan = {
	id: number
	name: string
	interval: string
	tier: string
	price_cents: number
	monthly_credits: number
	stripe_price_id: string | null
}

const COLUMNS = [
	'id',
	'name',
	'interval',
	'tier',
	'price_cents',
	'monthly_credits',
	'stripe_price_id',
] as const

/** SPEC.md plan ids: 1 monthly starter, 2 monthly unlimited, 3 yearly starter, 4 yearly unlimited. */
export async function listPricePlans(db: Kysely<DB> = defaultDb): Promise<PricePlan[]> {
	return db.selectFrom('price_plans').select(COLUMNS).orderBy('id').execute()
}

export async function getPricePlan(
	id: number,
	db: Kysely<DB> = defaultDb,
): Promise<PricePlan | undefined> {
	if (!Number.isSafeInteger(id)) return undefined
	return db.selectFrom('price_plans').select(COLUMNS).where('id', '=', id).executeTakeFirst()
}

/**
 * The plan's recurring Stripe price: price_plans.stripe_price_id, or one made
 * now from the plan's price and interval and remembered. (An admin who changes
 * a plan's price clears stripe_price_id so that a new price is made.)
 */
export async function ensureStripePrice(db: Kysely<DB>, plan: PricePlan) {
	if (plan.stripe_price_id) return plan.stripe_price_id
	const params = {
		currency: 'usd',
		unit_amount: plan.price_cents,
		recurring: { interval: plan.interval === 'year' ? ('year' as const) : ('month' as const) },
		product_data: { name: plan.name },
		metadata: { plan_id: String(plan.id) },
	}
	// two checkouts at once (or a retry) make one price, not two
	const priceId = await createStripePrice(
		params,
		`price-${createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 40)}`,
	)
	await db
		.updateTable('price_plans')
		.set({ stripe_price_id: priceId, updated_at: new Date() })
		.where('id', '=', plan.id)
		.where('stripe_price_id', 'is', null)
		.execute()
	return priceId
}

/** The plan a Stripe price stands for: by stripe_price_id, else the price's plan_id metadata. */
export async function findPlanForStripePrice(
	db: Kysely<DB>,
	price: { id: string; metadata?: Record<string, string> | null },
) {
	const byId = await db
		.selectFrom('price_plans')
		.select(COLUMNS)
		.where('stripe_price_id', '=', price.id)
		.executeTakeFirst()
	if (byId) return byId
	const planId = Number(price.metadata?.plan_id)
	return Number.isSafeInteger(planId) ? getPricePlan(planId, db) : undefined
}
