import type Stripe from 'stripe'
import { z } from 'zod'
import { getConfig } from '../config.server.ts'
import { singleton } from '../utils/singleton.server.ts'
import { checkAnswer } from './http.server.ts'

export type { Stripe }

// Stripe's API (docs.stripe.com/api, API version of the SDK) through the official SDK. The
// app reaches Stripe only through the named functions below, and reads only what they return:
// each answer (and each webhook event's object) is checked against the fields the app relies
// on (zod), so an answer that is not the documented shape is a MalformedAnswerError naming
// the call and the field, not an undefined deep in billing (issue 39). This module knows
// nothing of services: what a failure means to a payer is the caller's to say.

/**
 * A Stripe client. `apiBase` (STRIPE_API_BASE) points it elsewhere than
 * api.stripe.com, through the SDK's host, port and protocol options: tests use
 * a local fake (tests/fakes/stripe).
 */
export async function createStripeClient(options: { secretKey: string; apiBase?: string }) {
	// loaded with the first Stripe call, not with every page (decision 0055)
	const { default: Stripe } = await import('stripe')
	const config: ConstructorParameters<typeof Stripe>[1] = {
		maxNetworkRetries: 1,
		timeout: 20_000,
		telemetry: false,
		appInfo: { name: 'Leadsmith' },
	}
	if (options.apiBase) {
		const url = new URL(options.apiBase)
		const protocol = url.protocol === 'http:' ? 'http' : 'https'
		config.host = url.hostname
		config.port = url.port || (protocol === 'http' ? 80 : 443)
		config.protocol = protocol
	}
	return new Stripe(options.secretKey, config)
}

/** The process's Stripe client (STRIPE_SECRET_KEY must be set); for this module and tests. */
export async function getStripe(): Promise<Stripe> {
	const config = getConfig()
	const secretKey = config.STRIPE_SECRET_KEY
	if (!secretKey) throw new Error('STRIPE_SECRET_KEY is not set')
	return singleton('stripe', () =>
		createStripeClient({ secretKey, apiBase: config.STRIPE_API_BASE }),
	)
}

/** Whether this server talks to Stripe (STRIPE_SECRET_KEY is set). */
export function stripeConfigured() {
	return !!getConfig().STRIPE_SECRET_KEY
}

// The shapes the app reads. An expandable field is an id or the expanded object: read as its id.
const expandable = z
	.union([z.string(), z.looseObject({ id: z.string() })])
	.nullish()
	.transform((value) => (typeof value === 'string' ? value : (value?.id ?? null)))
const metadata = z.record(z.string(), z.string()).nullish()

const SubscriptionSchema = z.object({
	id: z.string(),
	status: z.string(),
	customer: expandable,
	cancel_at_period_end: z.boolean(),
	items: z.object({
		data: z.array(
			z.object({
				id: z.string(),
				quantity: z.number().optional(),
				// periods live on the items (API 2025-03-31 and later)
				current_period_start: z.number(),
				current_period_end: z.number(),
				price: z.object({ id: z.string(), metadata }),
			}),
		),
	}),
})
export type StripeSubscription = z.infer<typeof SubscriptionSchema>

const CheckoutSessionSchema = z.object({
	id: z.string(),
	url: z.string().nullish(),
	mode: z.string(),
	payment_status: z.string(),
	customer: expandable,
	subscription: expandable,
	payment_intent: expandable,
	metadata,
	client_reference_id: z.string().nullish(),
})
export type StripeCheckoutSession = z.infer<typeof CheckoutSessionSchema>

const InvoiceSchema = z.object({
	id: z.string(),
	customer: expandable,
	amount_paid: z.number(),
	// the subscription an invoice bills (API 2025-03-31 and later: under `parent`)
	parent: z
		.object({ subscription_details: z.object({ subscription: expandable }).nullish() })
		.nullish(),
	lines: z.object({
		data: z.array(
			z.object({
				period: z.object({ start: z.number(), end: z.number() }),
				parent: z
					.object({
						subscription_item_details: z.object({ subscription: z.string().nullish() }).nullish(),
					})
					.nullish(),
				pricing: z.object({ price_details: z.object({ price: expandable }).nullish() }).nullish(),
			}),
		),
	}),
})
export type StripeInvoice = z.infer<typeof InvoiceSchema>

const ListSchema = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) })
const WithId = z.object({ id: z.string() })
const BalanceSchema = z.object({ object: z.literal('balance') })
const InvoicePaymentSchema = z.object({
	payment: z.object({ payment_intent: expandable }),
})

const check = <S extends z.ZodType>(schema: S, data: unknown, method: string, url: string) =>
	checkAnswer(schema, data, { method, url: `https://api.stripe.com${url}` })

/** GET /v1/balance: the key works (the admin health check). */
export async function checkStripeKey() {
	check(BalanceSchema, await (await getStripe()).balance.retrieve(), 'GET', '/v1/balance')
}

/** A customer for an account (idempotent by `idempotencyKey`); returns its id. */
export async function createStripeCustomer(
	params: { email: string; metadata: Record<string, string> },
	idempotencyKey: string,
) {
	const customer = await (await getStripe()).customers.create(params, { idempotencyKey })
	return check(WithId, customer, 'POST', '/v1/customers').id
}

/** A recurring price (idempotent by `idempotencyKey`); returns its id. */
export async function createStripePrice(params: Stripe.PriceCreateParams, idempotencyKey: string) {
	const price = await (await getStripe()).prices.create(params, { idempotencyKey })
	return check(WithId, price, 'POST', '/v1/prices').id
}

/** A Checkout Session (idempotent by `idempotencyKey`): where the payer pays. */
export async function createStripeCheckoutSession(
	params: Stripe.Checkout.SessionCreateParams,
	idempotencyKey: string,
) {
	const session = await (await getStripe()).checkout.sessions.create(params, { idempotencyKey })
	return check(CheckoutSessionSchema, session, 'POST', '/v1/checkout/sessions')
}

export async function retrieveStripeCheckoutSession(id: string) {
	const session = await (await getStripe()).checkout.sessions.retrieve(id)
	return check(CheckoutSessionSchema, session, 'GET', `/v1/checkout/sessions/${id}`)
}

export async function retrieveStripeSubscription(id: string) {
	const sub = await (await getStripe()).subscriptions.retrieve(id)
	return check(SubscriptionSchema, sub, 'GET', `/v1/subscriptions/${id}`)
}

export async function updateStripeSubscription(
	id: string,
	params: Stripe.SubscriptionUpdateParams,
) {
	const sub = await (await getStripe()).subscriptions.update(id, params)
	return check(SubscriptionSchema, sub, 'POST', `/v1/subscriptions/${id}`)
}

/** Cancels a subscription at once (no renewal, no proration). */
export async function cancelStripeSubscription(id: string) {
	const sub = await (await getStripe()).subscriptions.cancel(id)
	return check(SubscriptionSchema, sub, 'DELETE', `/v1/subscriptions/${id}`)
}

/** The subscription's paid invoices, newest first (as Stripe lists them), up to `limit`. */
export async function listPaidStripeInvoices(subscriptionId: string, limit: number) {
	const list = await (
		await getStripe()
	).invoices.list({
		subscription: subscriptionId,
		status: 'paid',
		limit,
	})
	return check(
		ListSchema(z.object({ id: z.string(), amount_paid: z.number() })),
		list,
		'GET',
		'/v1/invoices',
	).data
}

/** The payment intent that paid an invoice (through its invoice payments), if any. */
export async function stripeInvoicePaymentIntent(invoice: string) {
	const list = await (await getStripe()).invoicePayments.list({ invoice, status: 'paid', limit: 1 })
	return (
		check(ListSchema(InvoicePaymentSchema), list, 'GET', '/v1/invoice_payments').data[0]?.payment
			.payment_intent ?? null
	)
}

/**
 * Refunds a payment intent whole, once: the refund carries `idempotencyKey`, and a payment
 * Stripe says is refunded already counts as refunded (refundId null).
 */
export async function refundStripePayment(paymentIntent: string, idempotencyKey: string) {
	try {
		const refund = await (
			await getStripe()
		).refunds.create({ payment_intent: paymentIntent }, { idempotencyKey })
		return { refundId: check(WithId, refund, 'POST', '/v1/refunds').id }
	} catch (error) {
		if ((error as { code?: string }).code === 'charge_already_refunded') return { refundId: null }
		throw error
	}
}

/**
 * Gives back what a Checkout Session charged. Subscription mode: its subscription is cancelled
 * at once (it must not renew) and the first invoice that charged something refunded, through
 * the invoice's payment; payment mode: its payment intent. Safe to repeat: the refund carries
 * `idempotencyKey`, and a payment Stripe says is refunded already counts as refunded. Returns
 * Stripe's refund id, or null when nothing was charged or it was refunded before.
 */
export async function refundCheckoutSession(
	sessionId: string,
	idempotencyKey: string,
): Promise<{ refundId: string | null }> {
	const session = await retrieveStripeCheckoutSession(sessionId)
	let intent = session.payment_intent
	const subscriptionId = session.subscription
	if (subscriptionId) {
		const paid = await listPaidStripeInvoices(subscriptionId, 100)
		// newest first: the checkout's own invoice is the oldest that charged
		const invoice = paid.filter((i) => i.amount_paid > 0).at(-1)?.id
		if (invoice) intent = await stripeInvoicePaymentIntent(invoice)
		const sub = await retrieveStripeSubscription(subscriptionId)
		if (sub.status !== 'canceled') await cancelStripeSubscription(subscriptionId)
	}
	if (!intent) return { refundId: null }
	return refundStripePayment(intent, idempotencyKey)
}

/** A webhook event whose signature checked out; its object is read by the functions below. */
export type StripeEvent = { id: string; type: string; object: unknown }

/**
 * Checks a webhook's signature on the raw body (throws when it does not match) and returns
 * the event.
 */
export async function verifyStripeEvent(
	rawBody: string,
	signature: string,
	secret: string,
): Promise<StripeEvent> {
	const event = (await getStripe()).webhooks.constructEvent(rawBody, signature, secret)
	const checked = check(
		z.object({ id: z.string(), type: z.string(), data: z.object({ object: z.unknown() }) }),
		event,
		'POST',
		'/stripe/webhook (event)',
	)
	return { id: checked.id, type: checked.type, object: checked.data.object }
}

const eventObject = <S extends z.ZodType>(schema: S, event: StripeEvent) =>
	checkAnswer(schema, event.object, { method: 'EVENT', url: `${event.type} ${event.id}` })

/** The Checkout Session of a checkout.session.* event. */
export const eventCheckoutSession = (event: StripeEvent) =>
	eventObject(CheckoutSessionSchema, event)
/** The invoice of an invoice.* event. */
export const eventInvoice = (event: StripeEvent) => eventObject(InvoiceSchema, event)
/** The subscription of a customer.subscription.* event. */
export const eventSubscription = (event: StripeEvent) => eventObject(SubscriptionSchema, event)
