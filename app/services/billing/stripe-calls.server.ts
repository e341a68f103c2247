import { stripeConfigured } from '../../integrations/stripe.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'

// What a failed or impossible Stripe call means to the person at a form. The calls themselves
// are app/integrations/stripe.server.ts's; this leaf module names no product, so checkout and
// every product can use it (decision 0070).

/**
 * Before changing something Stripe bills (`what`, e.g. "This inbox"): a server without
 * STRIPE_SECRET_KEY cannot tell Stripe, so the change is refused before anything is written.
 */
export function assertStripeReachable(what: string) {
	if (stripeConfigured()) return
	throw new FormError(
		`${what} is billed through Stripe, which this server is not connected to right now. Nothing was changed; try again later or contact support.`,
	)
}

/** A Stripe call on behalf of a form: its failure is a message above the form. */
export async function callStripe<T>(call: () => Promise<T>): Promise<T> {
	try {
		return await call()
	} catch (error) {
		logger.error({ err: error }, 'Stripe request failed')
		throw new FormError('The payment provider did not answer. Nothing was changed; try again.')
	}
}
