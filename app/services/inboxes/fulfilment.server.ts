import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, forbidden, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { sealSecret } from '../../utils/secrets.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { stripeConfigured } from '../../integrations/stripe.server.ts'
import {
	billingStart,
	cancelInboxBilling,
	type InboxOrderRow,
	refundAndStopInboxBilling,
	refundsThroughStripe,
	startFirstPaidMonth,
} from './billing.server.ts'
import { parseCsv } from './csv.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'

/**
 * Fulfilling inbox orders: platform admins (the admin screens come with the admin area) move
 * an order from pending (0) to processing (1), then success (2) with the inboxes' credentials,
 * or fail (3) with a refund.
 */
function assertPlatformAdmin(account: AccountContext | null) {
	if (account?.platformRole !== 'admin') forbidden('Only platform admins fulfil inbox orders.')
	return account
}

async function lockOrder(trx: Kysely<DB>, id: string) {
	if (!isUuid(id)) notFound('This order')
	const order = await trx
		.selectFrom('inbox_orders')
		.selectAll()
		.where('id', '=', id)
		.forUpdate()
		.executeTakeFirst()
	if (!order) notFound('This order')
	return order
}

export const CREDENTIAL_COLUMNS = [
	'email',
	'first_name',
	'last_name',
	'password',
	'smtp_host',
	'smtp_port',
	'imap_host',
	'imap_port',
] as const

export type Credentials = {
	password: string
	smtp_host: string
	smtp_port: number
	imap_host: string
	imap_port: number
}

export const CREDENTIALS_PURPOSE = 'inbox-credentials'

const FAILED_ALREADY = 'This order was failed, so it cannot be fulfilled.'
const FULFILLED_ALREADY = 'This order was fulfilled, so it cannot be failed.'

export async function startOrder(
	account: AccountContext | null,
	id: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	return db.transaction().execute(async (trx) => {
		const order = await lockOrder(trx, id)
		if (order.status !== 0) throw new FormError('Only a pending order can start.')
		await trx
			.updateTable('inbox_orders')
			.set({ status: 1, updated_at: new Date() })
			.where('id', '=', id)
			.execute()
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'inboxes.order.start',
			targetType: 'inbox_order',
			targetId: id,
			before: { status: 0 },
			after: { status: 1 },
		})
	})
}

const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i
const EMAIL = /^[a-z0-9](?:[a-z0-9._+-]{0,62})@([a-z0-9.-]+)$/i

/**
 * Completes an order with a CSV of credentials (CREDENTIAL_COLUMNS), checked row by row: every
 * error names its line; nothing is written unless every row is right. Each inbox's credentials
 * are sealed (AES-256-GCM) bound to its row. The month paid at checkout starts now (decision
 * 0018): the inboxes are paid through a month from now, and a Stripe subscription's next
 * charge moves there (under the row lock, so the job's deferral never crosses it).
 */
export async function fulfilOrder(
	account: AccountContext | null,
	id: string,
	csv: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	return db.transaction().execute(async (trx) => {
		const order = await lockOrder(trx, id)
		// failing claims the order under this lock first, so a failed order is never fulfilled
		if (order.status === 3) throw new FormError(FAILED_ALREADY)
		if (order.status !== 0 && order.status !== 1) {
			throw new FormError('This order is already fulfilled.')
		}
		const domains = await trx
			.selectFrom('domains')
			.select(['id', 'name', 'workspace_id'])
			.where(
				'id',
				'in',
				order.domain_ids.length ? order.domain_ids : ['00000000-0000-0000-0000-000000000000'],
			)
			.execute()
		const byName = new Map(domains.map((d) => [d.name, d]))
		// inboxes delivered by an earlier, partial upload count against each domain's share
		const delivered = await trx
			.selectFrom('inboxes')
			.select(['domain_id'])
			.where('order_id', '=', order.id)
			.execute()
		const ordered = order.inboxes_per_domain * order.domain_ids.length
		const rows = parseCsv(csv)
		const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase().replace(/\s+/g, '_'))
		const missing = CREDENTIAL_COLUMNS.filter((c) => !header.includes(c))
		if (missing.length)
			throw new FormError(`The CSV lacks the columns ${missing.join(', ')}.`, 'csv')
		const at = (row: string[], column: (typeof CREDENTIAL_COLUMNS)[number]) =>
			(row[header.indexOf(column)] ?? '').trim()
		const errors: string[] = []
		const seen = new Set<string>()
		const perDomain = new Map<string, number>()
		for (const inbox of delivered) {
			if (inbox.domain_id) perDomain.set(inbox.domain_id, (perDomain.get(inbox.domain_id) ?? 0) + 1)
		}
		const inboxes: {
			address: string
			first: string
			last: string
			domain: (typeof domains)[number]
			credentials: Credentials
		}[] = []
		rows.forEach((row, index) => {
			const line = index + 2
			const problems: string[] = []
			const address = at(row, 'email').toLowerCase()
			const match = EMAIL.exec(address)
			const domain = match ? byName.get(match[1]!) : undefined
			if (!match) problems.push('email is not an email address')
			else if (!domain) problems.push(`${match[1]} is not one of this order's domains`)
			if (seen.has(address)) problems.push('email repeats an earlier row')
			const password = at(row, 'password')
			if (password.length < 8) problems.push('password needs at least 8 characters')
			if (/^[=+\-@]/.test(password)) problems.push('password cannot start with = + - or @')
			const ports = (['smtp_port', 'imap_port'] as const).map((c) => {
				const value = Number(at(row, c))
				if (!Number.isInteger(value) || value < 1 || value > 65535)
					problems.push(`${c} is not a port`)
				return value
			})
			for (const c of ['smtp_host', 'imap_host'] as const) {
				if (!HOST.test(at(row, c))) problems.push(`${c} is not a host name`)
			}
			if (domain) {
				const n = (perDomain.get(domain.id) ?? 0) + 1
				perDomain.set(domain.id, n)
				if (n > order.inboxes_per_domain) {
					problems.push(`more than ${order.inboxes_per_domain} inboxes at ${domain.name}`)
				}
			}
			if (problems.length) {
				errors.push(`Line ${line}: ${problems.join('; ')}.`)
				return
			}
			seen.add(address)
			inboxes.push({
				address,
				first: at(row, 'first_name'),
				last: at(row, 'last_name'),
				domain: domain!,
				credentials: {
					password,
					smtp_host: at(row, 'smtp_host'),
					smtp_port: ports[0]!,
					imap_host: at(row, 'imap_host'),
					imap_port: ports[1]!,
				},
			})
		})
		if (rows.length === 0) errors.push('The CSV has no rows.')
		if (inboxes.length) {
			const taken = await trx
				.selectFrom('inboxes')
				.select('address')
				.where(
					'address',
					'in',
					inboxes.map((i) => i.address),
				)
				.execute()
			for (const t of taken) errors.push(`${t.address} already exists.`)
		}
		if (errors.length) throw new FormError(errors.join(' '), 'csv')
		// Fewer than ordered: those inboxes are delivered, the order stays open for the rest, and
		// the paid month starts only with the last one (decision 0028): nobody pays for an inbox
		// that does not exist yet.
		const complete = delivered.length + inboxes.length >= ordered
		const billing = complete
			? await startFirstPaidMonth(trx, order, billingStart())
			: { paidThrough: null, endsAtPeriodEnd: false }
		for (const inbox of inboxes) {
			const row = await trx
				.insertInto('inboxes')
				.values({
					user_id: order.user_id,
					workspace_id: inbox.domain.workspace_id ?? order.workspace_id,
					order_id: order.id,
					domain_id: inbox.domain.id,
					provider: order.provider,
					address: inbox.address,
					first_name: inbox.first || null,
					last_name: inbox.last || null,
					status: 'active',
					period_end: billing.paidThrough,
					// the order bills no more (its Stripe subscription ended): they end with the month
					cancel_at_period_end: billing.endsAtPeriodEnd,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			await trx
				.updateTable('inboxes')
				.set({
					encrypted_credentials: sealSecret(
						JSON.stringify(inbox.credentials),
						CREDENTIALS_PURPOSE,
						row.id,
					),
				})
				.where('id', '=', row.id)
				.execute()
		}
		const total = delivered.length + inboxes.length
		if (!complete) {
			await trx
				.updateTable('inbox_orders')
				.set({ status: 1, updated_at: new Date() })
				.where('id', '=', order.id)
				.execute()
			await recordAudit(trx, {
				actorUserId: admin.user.id,
				action: 'inboxes.order.deliver_part',
				targetType: 'inbox_order',
				targetId: order.id,
				before: { status: order.status, delivered: delivered.length },
				after: { status: 1, delivered: total, ordered },
			})
			return { inboxes: inboxes.length, delivered: total, ordered, complete }
		}
		await trx
			.updateTable('inbox_orders')
			.set({ status: 2, fulfilled_at: new Date(), error: null, updated_at: new Date() })
			.where('id', '=', order.id)
			.execute()
		await notifyJobEnd(trx, { kind: 'inbox-order', id: order.id })
		await recordAudit(trx, {
			actorUserId: admin.user.id,
			action: 'inboxes.order.fulfil',
			targetType: 'inbox_order',
			targetId: order.id,
			before: { status: order.status, delivered: delivered.length },
			after: { status: 2, inboxes: total, paid_through: billing.paidThrough },
		})
		return { inboxes: inboxes.length, delivered: total, ordered, complete }
	})
}

/**
 * Fails an order with its reason and refunds what was paid: through Stripe (the checkout's
 * payment) when it was paid there; a test-mode payment is marked refunded.
 */
export async function failOrder(
	account: AccountContext | null,
	id: string,
	reason: string,
	db: Kysely<DB> = defaultDb,
) {
	const admin = assertPlatformAdmin(account)
	if (!reason.trim()) throw new FormError('Say why the order failed.', 'reason')
	return refundAndFailOrder(db, id, reason.trim(), admin.user.id)
}

/** The order is failed (claimed), but its refund is still to be confirmed by the provider. */
export class RefundNotConfirmedError extends FormError {
	constructor() {
		super(
			'The order is failed, but the payment provider did not confirm its refund. Try again to refund it.',
		)
	}
}

/**
 * The failing and refunding itself, for an admin or (actor null) the inbox-order job. Failing
 * and fulfilling exclude each other: the order is first claimed under its row lock (still open:
 * status fail, billing stopped, refund pending) and committed; only then is Stripe called, and
 * the refund recorded (`refunded_at`). A fulfilled order, or one failed and refunded, is a
 * FormError. A claimed order whose refund is not recorded (Stripe did not answer, or a crash)
 * is refunded by calling this again: the refund's idempotency key makes it happen once.
 */
export async function refundAndFailOrder(
	db: Kysely<DB>,
	id: string,
	reason: string,
	actorUserId: string | null,
	/** the customer's own cancel (cancel-order.server.ts): its rule, checked under the lock */
	allowed?: (order: InboxOrderRow) => void,
) {
	const claimed = await db.transaction().execute(async (trx) => {
		const order = await lockOrder(trx, id)
		allowed?.(order)
		if (order.status === 2) throw new FormError(FULFILLED_ALREADY)
		if (order.status === 3 && order.refunded_at) {
			throw new FormError('This order is already failed and refunded.')
		}
		if (refundsThroughStripe(order) && !stripeConfigured()) {
			throw new FormError(
				'This order was paid through Stripe, which this server is not connected to right now, so it cannot be refunded. Nothing was changed.',
			)
		}
		// claimed before (its refund did not go through): only the refund is left to do
		if (order.status === 3) return order
		const live = await trx
			.selectFrom('inboxes')
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.where('order_id', '=', order.id)
			.executeTakeFirstOrThrow()
		if (Number(live.n) > 0) {
			throw new FormError(
				`${live.n} inboxes of this order are delivered already, so it cannot be failed and refunded. Upload the rest of its inboxes.`,
			)
		}
		const failed = await trx
			.updateTable('inbox_orders')
			.set({ status: 3, error: reason, updated_at: new Date() })
			.where('id', '=', order.id)
			.returningAll()
			.executeTakeFirstOrThrow()
		await cancelInboxBilling(trx, order.id)
		await notifyJobEnd(trx, { kind: 'inbox-order', id: order.id })
		await recordAudit(trx, {
			actorUserId,
			action: 'inboxes.order.fail',
			targetType: 'inbox_order',
			targetId: order.id,
			before: { status: order.status },
			after: { status: 3, error: reason },
		})
		return failed
	})
	// Stripe: the monthly subscription stops and its paid invoice is refunded (decision 0013).
	try {
		await refundAndStopInboxBilling(claimed)
	} catch (error) {
		if (!(error instanceof FormError)) throw error
		throw new RefundNotConfirmedError()
	}
	await db.transaction().execute(async (trx) => {
		const refunded = await trx
			.updateTable('inbox_orders')
			.set({ refunded_at: new Date(), refund_cents: claimed.total_cents, updated_at: new Date() })
			.where('id', '=', claimed.id)
			.where('refunded_at', 'is', null)
			.returning('id')
			.executeTakeFirst()
		if (!refunded) return
		await recordAudit(trx, {
			actorUserId,
			action: 'inboxes.order.refund',
			targetType: 'inbox_order',
			targetId: claimed.id,
			before: { refund_cents: 0 },
			after: { refund_cents: claimed.total_cents },
		})
	})
}

/** Fulfilled, or failed with its refund recorded: nothing is left to do for the order. */
export async function orderFinished(db: Kysely<DB>, id: string) {
	const order = await db
		.selectFrom('inbox_orders')
		.select(['status', 'refunded_at'])
		.where('id', '=', id)
		.executeTakeFirst()
	return order?.status === 2 || (order?.status === 3 && order.refunded_at !== null)
}
