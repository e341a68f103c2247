import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { formatDate } from '../../utils/money.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { domainAccount } from './access.server.ts'
import { findDomain, LIVE_SUBSCRIPTION_STATUSES } from './domains.server.ts'

/**
 * Why a domain must stay (null: it may go): a subscription still paid for (cancelled ones too,
 * until their month ends: the money was spent on it), active inboxes on it, or an inbox order
 * for it still being set up.
 */
export async function whyDomainStays(db: Kysely<DB>, domainId: string, now = new Date()) {
	const sub = await db
		.selectFrom('domain_subscriptions')
		.select(['expire_date', 'cancel_at_period_end'])
		.where('domain_id', '=', domainId)
		.where('status', 'in', LIVE_SUBSCRIPTION_STATUSES)
		.where('expire_date', '>', now)
		.executeTakeFirst()
	if (sub) {
		return sub.cancel_at_period_end
			? `its subscription runs until ${formatDate(sub.expire_date)}`
			: 'it has a live subscription; cancel it first'
	}
	const inboxes = await db
		.selectFrom('inboxes')
		.select((eb) => eb.fn.countAll<string>().as('n'))
		.where('domain_id', '=', domainId)
		.where('status', '=', 'active')
		.executeTakeFirstOrThrow()
	const n = Number(inboxes.n)
	if (n > 0) return `it has ${n} active inbox${n === 1 ? '' : 'es'}; cancel them first`
	const order = await db
		.selectFrom('inbox_orders')
		.select('id')
		.where(sql<boolean>`${domainId}::uuid = any(domain_ids)`)
		.where('status', '<', 2)
		.executeTakeFirst()
	if (order) return 'an inbox order for it is being set up'
	return null
}

/**
 * Deletes a domain of the account (with its ended subscriptions' rows), refused with the reason
 * while it is paid for or carries inboxes. Locks the row, so a payment completing at the same
 * moment (its fulfilment locks it too) either comes first and is seen, or finds no domain.
 */
export async function deleteDomain(
	account: AccountContext | null,
	domainId: string,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	return db.transaction().execute(async (trx) => {
		const domain = await findDomain(acting, domainId, trx, { forUpdate: true })
		const reason = await whyDomainStays(trx, domain.id)
		if (reason) throw new FormError(`${domain.name} cannot be deleted: ${reason}.`)
		await trx.deleteFrom('domains').where('id', '=', domain.id).execute()
		await recordAudit(trx, {
			actorUserId: acting.user.id,
			action: 'domains.delete',
			targetType: 'domain',
			targetId: domain.id,
			before: { name: domain.name, workspace_id: domain.workspace_id },
		})
		return domain
	})
}
