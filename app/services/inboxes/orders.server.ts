import { sql, type ExpressionBuilder, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid } from '../../utils/http-errors.server.ts'
import { formatDate } from '../../utils/money.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { createCheckout, type CheckoutOptions } from '../billing/checkout.server.ts'
import type { FulfilmentContext } from '../billing/checkout.server.ts'
import { assertWorkspace, domainAccount } from '../domains/access.server.ts'
import { paidFor, visibleDomains } from '../domains/domains.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { startInboxBilling } from './billing.server.ts'
import { plannedInboxes } from './planned.ts'
import { parsePersonas, planAddresses, type AddressPattern, type Persona } from './personas.ts'
import { InboxOrderSchema, type InboxOrderInput } from './schemas.ts'

export function inboxPriceCents() {
	return getConfig().INBOX_PRICE_CENTS
}

/** Active domains with a live subscription: the ones inboxes can be ordered for. */
export async function listOrderableDomains(
	account: AccountContext | null,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	return db
		.selectFrom('domains')
		.select(['domains.id', 'domains.name', 'domains.workspace_id'])
		.where(visibleDomains(acting))
		.where('domains.status', '=', 'active')
		.where((eb) => paidFor(eb))
		.orderBy('domains.name')
		.execute()
}

export type InboxQuote = {
	provider: 'google' | 'microsoft'
	inboxesPerDomain: number
	patterns: AddressPattern[]
	personas: Persona[]
	workspaceId: string | null
	domains: { id: string; name: string; addresses: string[] }[]
	count: number
	unitCents: number
	totalCents: number
	/** the validated order, for the checkout link */
	order: InboxOrderInput
}

/**
 * The price of an inbox order, and the addresses it makes, without writing anything. Every
 * domain must be the account's, visible to the user, active and subscribed; each needs as
 * many different addresses (persona x pattern) as inboxes, none already taken.
 */
export async function quoteInboxOrder(
	account: AccountContext | null,
	raw: unknown,
	options: { workspaceId?: string | null; db?: Kysely<DB> } = {},
): Promise<InboxQuote> {
	const db = options.db ?? defaultDb
	const acting = domainAccount(account, 'change')
	const parsed = InboxOrderSchema.safeParse(raw)
	if (!parsed.success) {
		const issue = parsed.error.issues[0]!
		throw new FormError(issue.message, issue.path.join('.') || null)
	}
	const input = parsed.data
	const domainIds = [...new Set(input.domainIds)]
	const { personas, errors } = parsePersonas(input.personas)
	if (errors.length) throw new FormError(errors.join(' '), 'personas')
	if (personas.length === 0) throw new FormError('Type at least one persona name.', 'personas')
	const domains = await orderableDomains(acting, domainIds, db)
	const patterns = [...new Set(input.patterns)]
	const planned = domains.map((domain) => ({
		id: domain.id,
		name: domain.name,
		workspaceId: domain.workspace_id,
		addresses: planAddresses(domain.name, personas, patterns, input.inboxesPerDomain).map(
			(a) => a.address,
		),
	}))
	const short = planned.find((d) => d.addresses.length < input.inboxesPerDomain)
	if (short) {
		throw new FormError(
			`${input.inboxesPerDomain} inboxes at ${short.name} need ${input.inboxesPerDomain} different addresses, and these names and patterns make ${short.addresses.length}: add names or patterns.`,
			'personas',
		)
	}
	const all = planned.flatMap((d) => d.addresses)
	const taken = await db
		.selectFrom('inboxes')
		.select('address')
		.where('address', 'in', all)
		.execute()
	if (taken.length) {
		throw new FormError(
			`${taken.map((t) => t.address).join(', ')} already exist: change the names or patterns.`,
			'personas',
		)
	}
	const same = await liveSameOrder(db, acting.accountId, {
		provider: input.provider,
		inboxesPerDomain: input.inboxesPerDomain,
		domainIds,
		personas,
		patterns,
	})
	if (same) {
		throw new FormError(
			`You already ordered exactly these inboxes (${formatDate(same.created_at)}): change the domains, names or patterns to order more.`,
			'personas',
		)
	}
	const workspaces = new Set(planned.map((d) => d.workspaceId))
	const workspaceId =
		workspaces.size === 1
			? [...workspaces][0]!
			: (options.workspaceId ?? acting.workspaces[0]?.id ?? null)
	assertWorkspace(acting, workspaceId)
	const unitCents = inboxPriceCents()
	return {
		provider: input.provider,
		inboxesPerDomain: input.inboxesPerDomain,
		patterns,
		personas,
		workspaceId,
		domains: planned.map(({ id, name, addresses }) => ({ id, name, addresses })),
		count: all.length,
		unitCents,
		totalCents: all.length * unitCents,
		order: { ...input, domainIds },
	}
}

async function orderableDomains(acting: ActingAccount, ids: string[], db: Kysely<DB>) {
	if (!ids.every(isUuid)) throw new FormError('Pick domains from the list.', 'domainIds')
	const rows = await db
		.selectFrom('domains')
		.select((eb) => [
			'domains.id',
			'domains.name',
			'domains.status',
			'domains.workspace_id',
			paidFor(eb).as('subscribed'),
		])
		.where('domains.id', 'in', ids)
		.where(visibleDomains(acting))
		.execute()
	if (rows.length !== ids.length) {
		throw new FormError('Pick domains from the list: one of them is not yours.', 'domainIds')
	}
	const lapsed = rows.filter((r) => r.status !== 'active' || !r.subscribed)
	if (lapsed.length) {
		throw new FormError(
			`${lapsed.map((r) => r.name).join(', ')} ${lapsed.length === 1 ? 'has' : 'have'} no active domain subscription: renew before ordering inboxes.`,
			'domainIds',
		)
	}
	return ids.map((id) => rows.find((r) => r.id === id)!)
}

type OrderedInboxes = {
	provider: 'google' | 'microsoft'
	inboxesPerDomain: number
	domainIds: string[]
	personas: Persona[]
	patterns: string[]
}

/**
 * A live order of the account (not failed, still billed) for exactly these inboxes: the same
 * provider, domains, count, names and patterns, as two checkout pages of one quote make.
 */
async function liveSameOrder(db: Kysely<DB>, accountId: string, order: OrderedInboxes) {
	const domainIds = sql<string[]>`${order.domainIds}::uuid[]`
	return db
		.selectFrom('inbox_orders')
		.select(['id', 'created_at'])
		.where('user_id', '=', accountId)
		.where('status', '!=', 3)
		.where('billing_status', 'in', ['active', 'past_due'])
		.where('provider', '=', order.provider)
		.where('inboxes_per_domain', '=', order.inboxesPerDomain)
		.where('domain_ids', '@>', domainIds)
		.where('domain_ids', '<@', domainIds)
		.where(sql<boolean>`personas = ${JSON.stringify(order.personas)}::jsonb`)
		.where('address_patterns', '=', sql<string[]>`${order.patterns}::text[]`)
		.executeTakeFirst()
}

/**
 * At payment (decision 0064): the same order paid from another checkout page since this one
 * opened is not ordered twice; this payment is refunded. Planning's lock serialises payments
 * of inbox orders (and the job's planning), so the answer holds until this one commits.
 */
export async function inboxOrderPaidAlready(db: Kysely<DB>, { session, item }: FulfilmentContext) {
	await sql`select pg_advisory_xact_lock(hashtext('inbox_order_planning'))`.execute(db)
	const order = JSON.parse(String(item.data.order)) as OrderedInboxes
	const same = await liveSameOrder(db, session.user_id, order)
	if (!same) return null
	return `These inboxes were already ordered from another checkout (${formatDate(same.created_at)}), so this payment was refunded.`
}

/** The order as the checkout link carries it (base64url JSON; validated again on arrival). */
export function encodeOrder(order: InboxOrderInput) {
	return Buffer.from(JSON.stringify(order)).toString('base64url')
}

export function decodeOrder(value: string): unknown {
	try {
		return JSON.parse(Buffer.from(value, 'base64url').toString('utf8'))
	} catch {
		throw new FormError('This order link is damaged: start again from Order inboxes.')
	}
}

/** Opens the checkout for a quoted order. The order itself is written once it is paid. */
export async function startInboxOrderCheckout(
	account: AccountContext | null,
	raw: unknown,
	options: { workspaceId?: string | null } & CheckoutOptions = {},
) {
	const quote = await quoteInboxOrder(account, raw, options)
	const acting = domainAccount(account, 'change')
	// Inboxes are billed monthly (decision 0013): a recurring item whose quantity is the inboxes.
	return createCheckout(
		acting,
		{
			mode: 'subscription',
			items: [
				{
					kind: 'inbox_order',
					interval: 'month',
					description: `${quote.count} ${quote.provider === 'google' ? 'Google' : 'Microsoft'} inboxes on ${quote.domains.length} domain${quote.domains.length === 1 ? '' : 's'}`,
					quantity: quote.count,
					unitAmountCents: quote.unitCents,
					data: {
						order: JSON.stringify({
							provider: quote.provider,
							inboxesPerDomain: quote.inboxesPerDomain,
							domainIds: quote.domains.map((d) => d.id),
							personas: quote.personas,
							patterns: quote.patterns,
						}),
						workspaceId: quote.workspaceId,
					},
				},
			],
			successPath: '/inboxes',
			cancelPath: '/ordering-inboxes',
		},
		{ executor: options.executor, intentKey: options.intentKey },
	)
}

/**
 * Fulfilment of a paid inbox_order line: the order (status 0, pending) and its inbox-order job,
 * which plans the addresses and hands the order to the admins.
 */
export async function fulfilInboxOrderPayment(
	db: Kysely<DB>,
	{ session, item, index, payment, actorUserId }: FulfilmentContext,
) {
	const order = JSON.parse(String(item.data.order)) as {
		provider: 'google' | 'microsoft'
		inboxesPerDomain: number
		domainIds: string[]
		personas: Persona[]
		patterns: string[]
	}
	const row = await db
		.insertInto('inbox_orders')
		.values({
			user_id: session.user_id,
			workspace_id: item.data.workspaceId ? String(item.data.workspaceId) : null,
			provider: order.provider,
			status: 0,
			inboxes_per_domain: order.inboxesPerDomain,
			domain_ids: order.domainIds,
			personas: JSON.stringify(order.personas),
			address_patterns: order.patterns,
			total_cents: item.quantity * item.unitAmountCents,
			payment_reference: `${payment.provider}:${session.provider_session_id ?? session.id}`,
			checkout_session_id: session.id,
			line_index: index,
		})
		.onConflict((oc) => oc.columns(['checkout_session_id', 'line_index']).doNothing())
		.returning('id')
		.executeTakeFirst()
	if (!row) return
	await startInboxBilling(db, row.id, {
		payment,
		unitCents: item.unitAmountCents,
		quantity: item.quantity,
	})
	// the job that checks the order and plans its addresses, with the order or not at all
	await enqueue('inbox-order', { orderId: row.id }, { db, singletonKey: row.id })
	await recordAudit(db, {
		actorUserId,
		action: 'inboxes.order.create',
		targetType: 'inbox_order',
		targetId: row.id,
		after: {
			provider: order.provider,
			domains: order.domainIds.length,
			total_cents: item.quantity * item.unitAmountCents,
		},
	})
}

export const BILLING_STARTS_AT_DELIVERY = 'Billing starts when your inboxes are ready'

/**
 * What the order's billing says to its owner (decision 0018): before delivery, that the paid
 * month has not started; once delivered, when it renews, or when it ends if it bills no more;
 * nothing for a failed (refunded) order.
 */
export function orderBillingNote(
	order: { status: number; billing_status: string; paid_through: Date | null; quantity: number },
	now = new Date(),
) {
	if (order.status === 0 || order.status === 1) return BILLING_STARTS_AT_DELIVERY
	if (order.status !== 2 || !order.paid_through) return null
	const renews = ['active', 'past_due'].includes(order.billing_status) && order.quantity > 0
	if (renews) return `Renews ${formatDate(order.paid_through)}`
	return `${order.paid_through > now ? 'Ends' : 'Ended'} ${formatDate(order.paid_through)}`
}

/** For a query over `inbox_orders`: the account's, in the workspaces the user may use. */
export function visibleOrders(acting: ActingAccount) {
	const ids = acting.workspaces.map((w) => w.id)
	return (eb: ExpressionBuilder<DB, 'inbox_orders'>) =>
		eb.and([
			eb('inbox_orders.user_id', '=', acting.accountId),
			eb.or([
				...(ids.length ? [eb('inbox_orders.workspace_id', 'in', ids)] : []),
				...(acting.accessAllWorkspaces ? [eb('inbox_orders.workspace_id', 'is', null)] : []),
				eb.val(false),
			]),
		])
}

/** The account's inbox orders (newest first) in the workspaces the user may use. */
export async function listInboxOrders(account: AccountContext | null, db: Kysely<DB> = defaultDb) {
	const acting = domainAccount(account, 'view')
	const rows = await db
		.selectFrom('inbox_orders')
		.select([
			'id',
			'provider',
			'status',
			'inboxes_per_domain',
			'domain_ids',
			'total_cents',
			'error',
			'created_at',
			'refunded_at',
			'planned_inboxes',
			'billing_status',
			'paid_through',
			'quantity',
			'workspace_id',
		])
		.where(visibleOrders(acting))
		.orderBy('created_at', 'desc')
		.limit(50)
		.execute()
	return rows.map(({ planned_inboxes, ...order }) => ({
		...order,
		// the addresses the inbox-order job planned, once it has
		planned: plannedInboxes(planned_inboxes).map((p) => p.address),
	}))
}
