import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeApollo, type FakeApollo } from '../../../tests/fakes/apollo/server.ts'
import { startFakeStripe, type FakeStripe } from '../../../tests/fakes/stripe/server.ts'
import { getConfig } from '../../config.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { runServerChecks } from './health.server.ts'

// The admin health check's provider calls against the fakes, which answer as the services do
// (issue 39 points 1 and 7).
let stripe: FakeStripe
let apollo: FakeApollo
beforeAll(async () => {
	stripe = await startFakeStripe()
	apollo = await startFakeApollo()
})
afterAll(async () => {
	await stripe.close()
	await apollo.close()
})

const checksWith = async (env: Record<string, string>) => {
	Object.assign(process.env, env)
	resetSingleton('config')
	resetSingleton('stripe')
	return runServerChecks(db, getConfig())
}

test('the Stripe check passes against the fake, as against Stripe (GET /v1/balance)', async () => {
	const results = await checksWith({
		STRIPE_SECRET_KEY: stripe.secretKey,
		STRIPE_API_BASE: stripe.url,
		STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
	})
	expect(results.find((r) => r.service === 'stripe')).toMatchObject({ ok: true })
	expect(stripe.calls).toContain('GET /v1/balance')
})

test('the Apollo check fails for a wrong key (its health call answers 200 for any key)', async () => {
	const wrong = await checksWith({ APOLLO_BASE_URL: apollo.url, APOLLO_API_KEY: 'wrong-key' })
	expect(wrong.find((r) => r.service === 'apollo')).toMatchObject({ ok: false })
	const right = await checksWith({ APOLLO_BASE_URL: apollo.url, APOLLO_API_KEY: apollo.apiKey })
	expect(right.find((r) => r.service === 'apollo')).toMatchObject({ ok: true })
})
