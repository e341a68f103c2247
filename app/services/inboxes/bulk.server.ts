import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import type { BulkHandler } from '../bulk/types.ts'
import { domainAccount } from '../domains/access.server.ts'
import { cancelInboxOrder, whyNotCancellable } from './cancel-order.server.ts'
import { visibleOrders } from './orders.server.ts'

/** An order's name in a bulk result: what and when, as the orders table says it. */
function orders() {
	return db
		.selectFrom('inbox_orders')
		.select([
			'inbox_orders.id',
			sql<string>`initcap(provider) || ' inboxes ordered ' || to_char(created_at, 'YYYY-MM-DD HH24:MI')`.as(
				'name',
			),
		])
}

/**
 * Bulk cancel of inbox orders (issue 34): only orders still waiting for setup are cancelled,
 * through the single cancel (cancel-order.server.ts); the others are skipped with why.
 */
export const inboxOrderBulk: BulkHandler = {
	kind: 'inbox-orders',
	authorize: (account) => void domainAccount(account, 'change'),
	async owned(account, ids) {
		const valid = ids.filter(isUuid)
		if (valid.length === 0) return []
		return orders()
			.where(visibleOrders(domainAccount(account, 'change')))
			.where('inbox_orders.id', 'in', valid)
			.execute()
	},
	async matching(account, _filter, afterId, limit) {
		return orders()
			.where(visibleOrders(domainAccount(account, 'change')))
			.$if(afterId !== null, (q) => q.where('inbox_orders.id', '>', afterId!))
			.orderBy('inbox_orders.id')
			.limit(limit)
			.execute()
	},
	async count(account) {
		const row = await db
			.selectFrom('inbox_orders')
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.where(visibleOrders(domainAccount(account, 'change')))
			.executeTakeFirstOrThrow()
		return Number(row.n)
	},
	actions: {
		cancel: {
			label: 'Cancel order',
			async run(account, row) {
				const order = await db
					.selectFrom('inbox_orders')
					.select(['status', 'refunded_at'])
					.where('id', '=', row.id)
					.executeTakeFirstOrThrow()
				const why = whyNotCancellable(order)
				if (why) return { skipped: why }
				await cancelInboxOrder(account, row.id)
				return 'done'
			},
		},
	},
}
