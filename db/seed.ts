import type { Kysely } from 'kysely'
import type { DB } from './schema.ts'

// Plan ids and names as SPEC.md gives them; prices and credits are defaults admins change later.
export const DEFAULT_PRICE_PLANS = [
	{ id: 1, name: 'Monthly Starter', interval: 'month', tier: 'starter', price_cents: 4_900, monthly_credits: 2_000 },
	{ id: 2, name: 'Monthly Unlimited', interval: 'month', tier: 'unlimited', price_cents: 14_900, monthly_credits: 10_000 },
	{ id: 3, name: 'Yearly Starter', interval: 'year', tier: 'starter', price_cents: 47_000, monthly_credits: 2_000 },
	{ id: 4, name: 'Yearly Unlimited', interval: 'year', tier: 'unlimited', price_cents: 143_000, monthly_credits: 10_000 },
] as const

export async function seedPricePlans(db: Kysely<DB>) {
	await db
		.insertInto('price_plans')
		.values(DEFAULT_PRICE_PLANS.map((p) => ({ ...p })))
		.onConflict((oc) => oc.column('id').doNothing())
		.execute()
}
