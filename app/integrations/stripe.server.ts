import type Stripe from 'stripe'
import { getConfig } from '../config.server.ts'
import { singleton } from '../utils/singleton.server.ts'

export type { Stripe }

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

/** The process's Stripe client (STRIPE_SECRET_KEY must be set). */
export async function getStripe(): Promise<Stripe> {
	const config = getConfig()
	const secretKey = config.STRIPE_SECRET_KEY
	if (!secretKey) throw new Error('STRIPE_SECRET_KEY is not set')
	return singleton('stripe', () =>
		createStripeClient({ secretKey, apiBase: config.STRIPE_API_BASE }),
	)
}

const idOf = (value: string | { id: string } | null | undefined) =>
	typeof value === 'string' ? value : (value?.id ?? null)

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
	const stripe = await getStripe()
	const session = await stripe.checkout.sessions.retrieve(sessionId)
	let intent = idOf(session.payment_intent)
	const subscriptionId = idOf(session.subscription)
	if (subscriptionId) {
		const paid = await stripe.invoices.list({
			subscription: subscriptionId,
			status: 'paid',
			limit: 100,
		})
		// newest first: the checkout's own invoice is the oldest that charged
		const invoice = paid.data.filter((i) => i.amount_paid > 0).at(-1)?.id
		if (invoice) {
			const payments = await stripe.invoicePayments.list({ invoice, status: 'paid', limit: 1 })
			intent = idOf(payments.data[0]?.payment.payment_intent)
		}
		const sub = await stripe.subscriptions.retrieve(subscriptionId)
		if (sub.status !== 'canceled') await stripe.subscriptions.cancel(subscriptionId)
	}
	if (!intent) return { refundId: null }
	try {
		const refund = await stripe.refunds.create({ payment_intent: intent }, { idempotencyKey })
		return { refundId: refund.id }
	} catch (error) {
		if ((error as { code?: string }).code === 'charge_already_refunded') return { refundId: null }
		throw error
	}
}
