import { db } from '../../../db/index.server.ts'

export async function getPricePlan(id: number) {
	return db
		.selectFrom('price_plans')
		.select(['id', 'name', 'interval', 'tier', 'price_cents', 'monthly_credits'])
		.where('id', '=', id)
		.executeTakeFirst()
}
