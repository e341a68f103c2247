import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { findBillingOwnerEmail } from '../billing/access.server.ts'
import { failOrder, fulfilOrder, startOrder } from '../inboxes/fulfilment.server.ts'
import { plannedInboxes } from '../inboxes/planned.ts'
import { getMailer } from '../mail/mailer.server.ts'
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

/** Fulfils the order (the service checks the CSV row by row) and tells the owner by email. */
export async function fulfilOrderAndNotify(
	account: AccountContext | null,
	id: string,
	csv: string,
	db: Kysely<DB> = defaultDb,
) {
	const result = await fulfilOrder(account, id, csv, db)
	// a partial delivery mails nobody yet: the order is ready when its last inbox is
	if (!result.complete) return result
	try {
		const order = await db
			.selectFrom('inbox_orders')
			.select('user_id')
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		const to = await findBillingOwnerEmail(db, order.user_id)
		if (to) {
			const { APP_NAME, APP_URL } = getConfig()
			await getMailer().send({
				to,
				subject: `Your ${result.delivered} inboxes are ready`,
				// the link ends the line: mail clients would take a full stop after it into the link
				text: `Your inbox order is fulfilled: ${result.delivered} inboxes are ready.\n\nSee them on ${APP_URL}/inboxes\n\n${APP_NAME}`,
			})
		}
	} catch (error) {
		// the order is fulfilled; a mail that did not go out must not undo it
		logger.error({ err: error, order: id }, 'could not tell the owner about a fulfilled order')
	}
	return result
}
