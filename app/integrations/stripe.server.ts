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
