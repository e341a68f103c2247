import { getConfig, type Config } from '../../config.server.ts'

export type PaymentProvider = 'stripe' | 'test'

/**
 * How this server takes payments: Stripe when STRIPE_SECRET_KEY is set (or
 * PAYMENTS=stripe), the test-payment page when PAYMENTS=test, outside production
 * or on a local install (APP_URL on localhost: `npm start` runs production), and
 * none on a public deployment without either (checkout refuses). Decision 0028.
 */
export function paymentProvider(config: Config = getConfig()): PaymentProvider | null {
	if (config.PAYMENTS === 'test') return 'test'
	if (config.PAYMENTS === 'stripe' || config.STRIPE_SECRET_KEY) return 'stripe'
	return config.isProduction && !config.localInstall ? null : 'test'
}

/** The test-payment page exists where paymentProvider says test (local, test mode, PAYMENTS=test). */
export function testPaymentsAllowed(config: Config = getConfig()) {
	return paymentProvider(config) === 'test'
}

export type CreditPack = { credits: number; priceCents: number }

/** CREDIT_PACKS: the pack sizes and prices on /purchase. */
export function listCreditPacks(config: Config = getConfig()): CreditPack[] {
	return config.CREDIT_PACKS
}
