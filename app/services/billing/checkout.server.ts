import { createHash } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { CheckoutSessions, DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { getConfig } from '../../config.server.ts'
import {
	createStripeCheckoutSession,
	createStripeCustomer,
	type Stripe,
} from '../../integrations/stripe.server.ts'
import { FormError, forbidden, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount, canChangeDomains } from '../workspaces/access.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { assertBillingOwner } from './access.server.ts'
import { paymentProvider, testPaymentsAllowed } from './payments.server.ts'
import { callStripe } from './stripe-calls.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'

/**
 * One checkout for everything the account pays for: plan subscriptions, credit packs, domain
 * subscriptions and inbox orders. A checkout is a list of line items, each with a kind whose
 * fulfilment (fulfilments.server.ts) runs in the transaction that records the payment
 * (complete-checkout.server.ts). Payment happens on Stripe Checkout when Stripe is configured,
 * else on the test-payment page.
 *
 * This module is checkout's basic pieces, and names no product: products import it to open
 * their checkouts and to type their fulfilments; the fulfilment table and checkout completion
 * import the products (decision 0070).
 */

/** Every kind of thing a checkout sells; fulfilments.server.ts gives each its fulfilment. */
export const LINE_ITEM_KINDS = [
	'plan',
	'credit_pack',
	'domain_subscription',
	'inbox_order',
] as const
export type LineItemKind = (typeof LINE_ITEM_KINDS)[number]

/** The kinds of a domain checkout (members with domain-management:write may pay for them). */
export const DOMAIN_LINE_ITEM_KINDS = [
	'domain_subscription',
	'inbox_order',
] as const satisfies readonly LineItemKind[]

export type CheckoutLineItem = {
	kind: LineItemKind
	/** what the payer sees */
	description: string
	quantity: number
	unitAmountCents: number
	/** a recurring item (subscription mode) */
	interval?: 'month' | 'year'
	/** the Stripe price to charge; without it Stripe gets price_data from the amount */
	stripePriceId?: string | null
	/** what the fulfilment needs (plan id, credits, order id...) */
	data: Record<string, string | number | boolean | null>
}

export type CheckoutMode = 'payment' | 'subscription'
export type CheckoutSession = Omit<Selectable<CheckoutSessions>, 'line_items'> & {
	line_items: CheckoutLineItem[]
}

/** How a checkout was paid. */
export type Payment = {
	provider: 'stripe' | 'test'
	customerId?: string | null
	/** the provider's subscription (subscription mode) */
	subscriptionId?: string | null
	/** the paid period; without an end, the plan's interval from the start */
	periodStart: Date
	periodEnd?: Date
}

export type FulfilmentContext = {
	session: CheckoutSession
	item: CheckoutLineItem
	/** the item's position in the checkout (ledger references use it) */
	index: number
	payment: Payment
	actorUserId: string | null
}

/** Delivers one paid line item, inside the transaction that records the payment. */
export type Fulfilment = (db: Kysely<DB>, context: FulfilmentContext) => Promise<void>

/**
 * Why a paid item cannot be delivered: another checkout already paid for the same thing (the
 * payer sees the sentence; the payment is refunded). Null when it can. Runs before any
 * fulfilment, in the payment's transaction, and takes the locks that make the answer hold
 * until that transaction commits (decision 0064).
 */
export type PaidAlready = (db: Kysely<DB>, context: FulfilmentContext) => Promise<string | null>

const MAX_QUANTITY = 1_000
const MAX_UNIT_CENTS = 10_000_000 // $100,000

function validateItems(mode: CheckoutMode, items: CheckoutLineItem[]) {
	if (items.length === 0 || items.length > 100) throw new Error('A checkout has 1 to 100 items')
	for (const item of items) {
		if (!(LINE_ITEM_KINDS as readonly string[]).includes(item.kind))
			throw new Error(`Unknown line item kind ${item.kind}`)
		if (!Number.isSafeInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_QUANTITY)
			throw new Error(`Bad quantity ${item.quantity}`)
		if (
			!Number.isSafeInteger(item.unitAmountCents) ||
			item.unitAmountCents < 0 ||
			item.unitAmountCents > MAX_UNIT_CENTS
		)
			throw new Error(`Bad amount ${item.unitAmountCents}`)
	}
	const recurring = items.filter((i) => i.interval)
	if (mode === 'subscription' && recurring.length !== 1)
		throw new Error('A subscription checkout has exactly one recurring item')
	if (mode === 'payment' && recurring.length > 0)
		throw new Error('A payment checkout has no recurring items')
}

/** Only domain subscriptions and inbox orders: DESIGN.md section 4's domain checkout. */
function isDomainCheckout(items: readonly { kind: string }[]) {
	return (
		items.length > 0 &&
		items.every((i) => (DOMAIN_LINE_ITEM_KINDS as readonly string[]).includes(i.kind))
	)
}

/**
 * Who may pay: the owner for everything; for a domain checkout also team members with scope
 * all or domain-management:write. Returns the account id.
 */
function assertPayer(account: AccountContext | null, items: readonly { kind: string }[]) {
	if (!isDomainCheckout(items)) return assertBillingOwner(account)
	const acting = actingAccount(account)
	if (!canChangeDomains(acting)) forbidden('Your access to domain management is read only.')
	return acting.accountId
}

/**
 * Opens a checkout for the owner (or, for a domain checkout, a member who may change domains). Returns where to send the payer: Stripe's
 * hosted page, or /test-payment/:id without Stripe.
 */
export async function createCheckout(
	account: AccountContext,
	request: {
		mode: CheckoutMode
		items: CheckoutLineItem[]
		/** where the payer lands after paying (a path in the app) */
		successPath: string
		/** where the payer lands after declining or going back */
		cancelPath: string
	},
	options: CheckoutOptions = {},
): Promise<{ id: string; url: string; provider: 'stripe' | 'test' }> {
	const executor = options.executor ?? defaultDb
	const accountId = assertPayer(account, request.items)
	const provider = paymentProvider()
	if (!provider) {
		throw new FormError(
			'Payments are not set up on this server yet. Ask the administrator to configure Stripe.',
		)
	}
	validateItems(request.mode, request.items)
	const total = request.items.reduce((sum, i) => sum + i.quantity * i.unitAmountCents, 0)
	const session = await inTransaction(executor, async (trx) => {
		const row = await trx
			.insertInto('checkout_sessions')
			.values({
				...(options.intentKey ? { id: sessionIdFor(accountId, options.intentKey) } : {}),
				user_id: accountId,
				created_by: account.user.id,
				provider,
				mode: request.mode,
				line_items: JSON.stringify(request.items),
				total_cents: total,
				success_path: request.successPath,
				cancel_path: request.cancelPath,
			})
			.returning(['id'])
			.executeTakeFirstOrThrow()
		await recordAudit(trx, {
			actorUserId: account.user.id,
			action: 'billing.checkout.create',
			targetType: 'checkout_session',
			targetId: row.id,
			after: { provider, mode: request.mode, total_cents: total, items: request.items },
		})
		return row
	})
	if (provider === 'test') return { id: session.id, url: `/test-payment/${session.id}`, provider }

	const appUrl = getConfig().APP_URL
	const customer = await ensureStripeCustomer(accountId, account.user.email)
	const separator = (path: string) => (path.includes('?') ? '&' : '?')
	const created = await callStripe(() =>
		createStripeCheckoutSession(
			{
				mode: request.mode,
				customer,
				client_reference_id: session.id,
				metadata: { checkout_session_id: session.id, account_id: accountId },
				line_items: request.items.map((item) => stripeLineItem(item)),
				success_url: `${appUrl}${request.successPath}${separator(request.successPath)}checkout=${session.id}`,
				cancel_url: `${appUrl}${request.cancelPath}`,
				...(request.mode === 'subscription'
					? {
							subscription_data: {
								metadata: { checkout_session_id: session.id, account_id: accountId },
							},
						}
					: {}),
			},
			// the same intent (a form sent again) gets the same Stripe session back
			`checkout-${session.id}`,
		),
	)
	await executor
		.updateTable('checkout_sessions')
		.set({ provider_session_id: created.id, provider_url: created.url, updated_at: new Date() })
		.where('id', '=', session.id)
		.execute()
	if (!created.url) throw new Error(`Stripe checkout session ${created.id} has no url`)
	return { id: session.id, url: created.url, provider }
}

export type CheckoutOptions = {
	/** the transaction of the form submission that opens the checkout */
	executor?: Kysely<DB>
	/** the form submission's intent: the same intent names the same checkout */
	intentKey?: string
}

/** A checkout id derived from the intent (UUID shaped), so a repeat names the same one. */
function sessionIdFor(accountId: string, intentKey: string) {
	const hex = createHash('sha256').update(`${accountId}:${intentKey}`).digest('hex')
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

function stripeLineItem(item: CheckoutLineItem): Stripe.Checkout.SessionCreateParams.LineItem {
	if (item.stripePriceId) return { price: item.stripePriceId, quantity: item.quantity }
	return {
		quantity: item.quantity,
		price_data: {
			currency: 'usd',
			unit_amount: item.unitAmountCents,
			product_data: { name: item.description },
			...(item.interval ? { recurring: { interval: item.interval } } : {}),
		},
	}
}

/** The account's Stripe customer, made on first checkout. */
async function ensureStripeCustomer(accountId: string, email: string) {
	const known = await defaultDb
		.selectFrom('billing_customers')
		.select('stripe_customer_id')
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	if (known) return known.stripe_customer_id
	const customerId = await callStripe(() =>
		createStripeCustomer({ email, metadata: { account_id: accountId } }, `customer-${accountId}`),
	)
	const row = await defaultDb
		.insertInto('billing_customers')
		.values({ user_id: accountId, stripe_customer_id: customerId })
		.onConflict((oc) => oc.column('user_id').doNothing())
		.returning('stripe_customer_id')
		.executeTakeFirst()
	return row?.stripe_customer_id ?? customerId
}

/** The account whose Stripe customer this is, if it is one of ours. */
export async function findAccountByStripeCustomer(customerId: string, db: Kysely<DB> = defaultDb) {
	const row = await db
		.selectFrom('billing_customers')
		.select('user_id')
		.where('stripe_customer_id', '=', customerId)
		.executeTakeFirst()
	return row?.user_id ?? null
}

/** A checkout of this account (another account's id, or a malformed one, is 404). */
export async function findCheckout(account: AccountContext, id: string) {
	if (!account?.accountId) forbidden('Sign in first.')
	if (!isUuid(id)) notFound('This checkout')
	const row = (await defaultDb
		.selectFrom('checkout_sessions')
		.selectAll()
		.where('id', '=', id)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()) as CheckoutSession | undefined
	// A member sees only a domain checkout it opened itself; everything else is the owner's.
	if (row && isDomainCheckout(row.line_items) && row.created_by === account.user.id) {
		assertPayer(account, row.line_items)
		return row
	}
	assertBillingOwner(account)
	if (!row) notFound('This checkout')
	return row
}

/** The test-payment page: only for test checkouts, only where test payments are allowed. */
export async function findTestCheckout(account: AccountContext, id: string) {
	if (!testPaymentsAllowed()) notFound('This page')
	const session = await findCheckout(account, id)
	if (session.provider !== 'test') notFound('This checkout')
	return session
}

/** The payer declines a test checkout: nothing is charged or granted. */
export async function declineTestCheckout(account: AccountContext, id: string) {
	const session = await findTestCheckout(account, id)
	return defaultDb.transaction().execute(async (trx) => {
		const declined = await trx
			.updateTable('checkout_sessions')
			.set({ status: 'declined', updated_at: new Date() })
			.where('id', '=', session.id)
			.where('status', '=', 'open')
			.returningAll()
			.executeTakeFirst()
		if (!declined) throw new FormError(`This checkout was already ${session.status}.`)
		await recordAudit(trx, {
			actorUserId: account.user.id,
			action: 'billing.checkout.decline',
			targetType: 'checkout_session',
			targetId: session.id,
			before: { status: 'open' },
			after: { status: 'declined' },
		})
		return declined as CheckoutSession
	})
}
