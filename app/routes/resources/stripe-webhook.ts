import type { Route } from './+types/stripe-webhook'
import { handleStripeWebhook } from '../../services/billing/stripe-webhook.server.ts'

export function loader() {
	return new Response('Method Not Allowed', { status: 405, headers: { Allow: 'POST' } })
}

/** Stripe's webhook: the signature covers the raw body, so it is read as text, untouched. */
export async function action({ request }: Route.ActionArgs) {
	if (request.method !== 'POST') return loader()
	const raw = await request.text()
	const result = await handleStripeWebhook(raw, request.headers.get('stripe-signature'))
	return new Response(result.message, {
		status: result.status,
		headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' },
	})
}
