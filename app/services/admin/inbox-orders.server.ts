import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { failOrder, fulfilOrder, startOrder } from '../inboxes/fulfilment.server.ts'
import { plannedInboxes } from '../inboxes/planned.ts'
import { assertStaff } from './access.server.ts'

export const ORDER_STATUS_LABELS = ['pending', 'processing', 'success', 'fail'] as const

/** The inbox-order queue: open orders first (pending, then processing), then finished ones. */
export async function listOrderQueue(
	account: AccountContext | null,
	status: number | null,
	db: Kysely<DB> = defaultDb,
) {
	assertStaff(account)
	let query = db
		.selectFrom('inbox_orders as o')
		.leftJoin('auth.users as u', 'u.id', 'o.user_id')
		.select([
			'o.id',
			'o.provider',
			'o.status',
			'o.inboxes_per_domain',
			'o.domain_ids',
			'o.total_cents',
			'o.error',
			'o.created_at',
			'o.fulfilled_at',
			'o.refunded_at',
			'o.planned_inboxes',
			'u.email as owner_email',
			(eb) =>
				eb
					.selectFrom('inboxes')
					.select((e) => e.fn.countAll<string>().as('n'))
					.whereRef('inboxes.order_id', '=', 'o.id')
					.as('delivered'),
		])
		.orderBy('o.status')
		.orderBy('o.created_at')
		.limit(200)
	if (status !== null) query = query.where('o.status', '=', status)
	const orders = await query.execute()
	const domainIds = [...new Set(orders.flatMap((o) => o.domain_ids))]
	const domains = domainIds.length
		? await db.selectFrom('domains').select(['id', 'name']).where('id', 'in', domainIds).execute()
		: []
	const names = new Map(domains.map((d) => [d.id, d.name]))
	return orders.map(({ planned_inboxes, delivered, ...o }) => ({
		...o,
		delivered: Number(delivered ?? 0),
		ordered: o.inboxes_per_domain * o.domain_ids.length,
		domains: o.domain_ids.map((id) => names.get(id) ?? id),
		// what the inbox-order job planned: the inboxes to create
		planned: plannedInboxes(planned_inboxes),
	}))
}

export { failOrder, startOrder }

/**
 * Fulfils the order (the service checks the CSV row by row). The owner is told once the last
 * inbox is delivered, by the order's notification and its mail ("Your N inboxes are ready"),
 * recorded in the transaction that completes the order (notifications/record.server.ts).
 */
export async function fulfilOrderAndNotify(
	account: AccountContext | null,
	id: string,
	csv: string,
	db: Kysely<DB> = defaultDb,
) {
	return fulfilOrder(account, id, csv, db)
}
