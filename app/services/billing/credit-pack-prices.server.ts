import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig, type Config } from '../../config.server.ts'
import { listCreditPacks, type CreditPack } from './payments.server.ts'

/**
 * The credit packs on offer: CREDIT_PACKS's sizes, at the price an admin set for a size
 * (credit_pack_prices) or CREDIT_PACKS's own. A checkout keeps the price it was made with, so
 * a new price applies to new checkouts only.
 */
export async function listOfferedCreditPacks(
	db: Kysely<DB> = defaultDb,
	config: Config = getConfig(),
): Promise<(CreditPack & { defaultPriceCents: number })[]> {
	const overrides = await db.selectFrom('credit_pack_prices').selectAll().execute()
	const prices = new Map(overrides.map((o) => [o.credits, o.price_cents]))
	return listCreditPacks(config).map((pack) => ({
		credits: pack.credits,
		priceCents: prices.get(pack.credits) ?? pack.priceCents,
		defaultPriceCents: pack.priceCents,
	}))
}
