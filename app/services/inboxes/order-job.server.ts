import { sql, type Kysely, type Transaction } from 'kysely'
import { z } from 'zod'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { createMailer } from '../mail/mailer.server.ts'
import { orderFinished, refundAndFailOrder } from './fulfilment.server.ts'
import { ADDRESS_PATTERNS, planAddresses, type AddressPattern } from './personas.ts'
import { plannedInboxes, type PlannedInbox } from './planned.ts'
import { paidFor } from '../domains/domains.server.ts'

/**
 * The inbox-order job (DESIGN.md section 7, queue inbox-order), enqueued with the paid order:
 * checks the order can still be made, plans its exact addresses, moves it to processing and
 * mails the platform admins who create the inboxes. The order row is the job's status row:
 * a retry sees what is done (planned_inboxes, admins_notified_at) and does only the rest.
 */

const PersonasSchema = z.array(z.object({ first: z.string(), last: z.string() }))

type Order = Awaited<ReturnType<typeof lockOrder>>

async function lockOrder(trx: Transaction<DB>, orderId: string) {
	return trx
		.selectFrom('inbox_orders')
		.selectAll()
		.where('id', '=', orderId)
		.forUpdate()
		.executeTakeFirst()
}

/** Why the order can no longer be made as paid (shown to the owner), or the plan. */
async function planOrder(
	trx: Transaction<DB>,
	order: NonNullable<Order>,
): Promise<{ reason: string } | { planned: PlannedInbox[] }> {
	const ids = order.domain_ids
	const domains = ids.length
		? await trx
				.selectFrom('domains')
				.select((eb) => [
					'domains.id',
					'domains.name',
					'domains.status',
					paidFor(eb).as('subscribed'),
				])
				.where('domains.id', 'in', ids)
				.where('domains.user_id', '=', order.user_id)
				.execute()
		: []
	if (ids.length === 0 || domains.length !== new Set(ids).size) {
		return {
			reason:
				'A domain of this order is no longer in your account, so the order was cancelled and refunded.',
		}
	}
	const lapsed = domains.filter((d) => d.status !== 'active' || !d.subscribed)
	if (lapsed.length) {
		return {
			reason: `${lapsed.map((d) => d.name).join(', ')} no longer ${lapsed.length === 1 ? 'has' : 'have'} an active domain subscription, so the order was cancelled and refunded.`,
		}
	}
	const personas = PersonasSchema.safeParse(order.personas)
	const patterns = order.address_patterns.filter((p): p is AddressPattern =>
		(ADDRESS_PATTERNS as readonly string[]).includes(p),
	)
	if (!personas.success || personas.data.length === 0 || patterns.length === 0) {
		return {
			reason: 'The order has no usable names or patterns, so it was cancelled and refunded.',
		}
	}
	const ordered = ids.map((id) => domains.find((d) => d.id === id)!)
	// Every address these names and patterns can make, to find the ones already in use: an
	// inbox, or planned for another open order (planning runs one at a time, see below).
	const candidates = ordered.flatMap((d) =>
		planAddresses(d.name, personas.data, patterns, Number.MAX_SAFE_INTEGER).map((a) => a.address),
	)
	const existing = await trx
		.selectFrom('inboxes')
		.select('address')
		.where('address', 'in', candidates)
		.execute()
	const otherPlans = await trx
		.selectFrom('inbox_orders')
		.select('planned_inboxes')
		.where('id', '!=', order.id)
		.where('status', 'in', [0, 1])
		.where('planned_inboxes', 'is not', null)
		.where('domain_ids', '&&', sql<string[]>`${ids}::uuid[]`)
		.execute()
	const taken = new Set([
		...existing.map((e) => e.address),
		...otherPlans.flatMap((o) => plannedInboxes(o.planned_inboxes).map((p) => p.address)),
	])
	const planned: PlannedInbox[] = []
	for (const domain of ordered) {
		const addresses = planAddresses(
			domain.name,
			personas.data,
			patterns,
			order.inboxes_per_domain,
			taken,
		)
		if (addresses.length < order.inboxes_per_domain) {
			return {
				reason: `${domain.name} has ${addresses.length} free addresses for these names and patterns and the order needs ${order.inboxes_per_domain} (the others exist already), so the order was cancelled and refunded.`,
			}
		}
		for (const a of addresses) {
			planned.push({
				domainId: domain.id,
				domain: domain.name,
				address: a.address,
				firstName: a.first,
				lastName: a.last,
			})
		}
	}
	return { planned }
}

/** Runs the job for one order; safe to run again at any point. */
export async function processInboxOrder(orderId: string, db: Kysely<DB> = defaultDb) {
	const outcome = await db.transaction().execute(async (trx) => {
		// One order planned at a time: two orders for one domain must not plan the same address.
		await sql`select pg_advisory_xact_lock(hashtext('inbox_order_planning'))`.execute(trx)
		const order = await lockOrder(trx, orderId)
		// failed, but the refund was not recorded (Stripe did not answer, or a crash): finish it
		if (order?.status === 3 && !order.refunded_at) return { reason: order.error ?? '' }
		if (!order || order.status >= 2) return 'finished' as const
		if (order.planned_inboxes !== null) return 'planned' as const
		const plan = await planOrder(trx, order)
		if ('reason' in plan) return plan
		await trx
			.updateTable('inbox_orders')
			.set({
				planned_inboxes: JSON.stringify(plan.planned),
				planned_at: new Date(),
				status: 1,
				updated_at: new Date(),
			})
			.where('id', '=', order.id)
			.execute()
		await recordAudit(trx, {
			actorUserId: null,
			action: 'inboxes.order.plan',
			targetType: 'inbox_order',
			targetId: order.id,
			before: { status: order.status },
			after: { status: 1, inboxes: plan.planned.length },
		})
		return 'planned' as const
	})
	if (outcome === 'finished') return
	if (typeof outcome === 'object') {
		try {
			await refundAndFailOrder(db, orderId, outcome.reason, null)
		} catch (error) {
			// not finished (its refund did not go through): the job fails and its retry refunds
			if (!(error instanceof FormError) || !(await orderFinished(db, orderId))) throw error
			// an admin finished it meanwhile: nothing left to do
			logger.info(
				{ order: orderId, reason: error.message },
				'inbox order finished before the job could fail it',
			)
		}
		return
	}
	await mailAdmins(db, orderId)
}

/**
 * Mails every platform admin about the planned order, once: the mails go out while the
 * order row is locked, and the row records it in the same transaction. With the local mailbox
 * the mails are rows of that transaction (exactly once); through SMTP a crash between the
 * server's acceptance and the commit would send them again on the retry.
 */
async function mailAdmins(db: Kysely<DB>, orderId: string) {
	await db.transaction().execute(async (trx) => {
		const order = await lockOrder(trx, orderId)
		if (!order || order.admins_notified_at || order.status !== 1) return
		const planned = plannedInboxes(order.planned_inboxes)
		if (planned.length === 0) return
		const owner = await trx
			.selectFrom('auth.users')
			.select('email')
			.where('id', '=', order.user_id)
			.executeTakeFirst()
		const admins = await trx
			.selectFrom('roles')
			.innerJoin('auth.users as u', 'u.id', 'roles.user_id')
			.select('u.email')
			.where('roles.role', '=', 'admin')
			.where('u.email', 'is not', null)
			.orderBy('u.email')
			.execute()
		const config = getConfig()
		const provider = order.provider === 'google' ? 'Google Workspace' : 'Microsoft 365'
		const byDomain = Map.groupBy(planned, (p) => p.domain)
		const text = [
			`${owner?.email ?? 'An account'} paid for ${planned.length} ${provider} inboxes (order ${order.id}). Create these:`,
			'',
			...[...byDomain].flatMap(([domain, inboxes]) => [
				domain,
				...inboxes.map((i) => `  ${i.address} (${i.firstName} ${i.lastName})`),
			]),
			'',
			`Then fulfil the order with their credentials: ${config.APP_URL}/admin-dashboard/inbox-orders?status=processing`,
			'',
			config.APP_NAME,
		].join('\n')
		const mailer = createMailer(config, trx)
		for (const admin of admins) {
			await mailer.send({
				to: admin.email!,
				subject: `Inbox order to set up: ${planned.length} ${provider} inboxes`,
				text,
			})
		}
		await trx
			.updateTable('inbox_orders')
			.set({ admins_notified_at: new Date() })
			.where('id', '=', order.id)
			.execute()
	})
}
