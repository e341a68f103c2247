import { describe, expect, test } from 'vitest'
import { parseEnv } from '../../config.server.ts'
import { listCreditPacks, paymentProvider, testPaymentsAllowed } from './payments.server.ts'

const base = { APP_SECRET: 'x'.repeat(32) }
const stripe = { STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }

describe('payment configuration', () => {
	test('Stripe with a key; the test page outside production; nothing in production', () => {
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'development' }))).toBe('test')
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'test', ...stripe }))).toBe('stripe')
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'production' }))).toBeNull()
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'production', ...stripe }))).toBe('stripe')
		const onPurpose = parseEnv({ ...base, NODE_ENV: 'production', PAYMENTS: 'test', ...stripe })
		expect(paymentProvider(onPurpose)).toBe('test')
		expect(testPaymentsAllowed(onPurpose)).toBe(true)
		expect(testPaymentsAllowed(parseEnv({ ...base, NODE_ENV: 'production' }))).toBe(false)
	})

	test('Stripe settings are checked at start', () => {
		expect(() => parseEnv({ ...base, STRIPE_SECRET_KEY: 'sk_test_abc' })).toThrow(
			/STRIPE_WEBHOOK_SECRET: is required with STRIPE_SECRET_KEY/,
		)
		expect(() => parseEnv({ ...base, PAYMENTS: 'stripe' })).toThrow(
			/STRIPE_SECRET_KEY: is required with PAYMENTS=stripe/,
		)
		expect(() => parseEnv({ ...base, ...stripe, STRIPE_SECRET_KEY: 'pk_test_abc' })).toThrow(
			/STRIPE_SECRET_KEY: must be a Stripe secret key/,
		)
		expect(() => parseEnv({ ...base, ...stripe, STRIPE_API_BASE: 'ftp://x' })).toThrow(
			/STRIPE_API_BASE/,
		)
	})

	test('credit packs are configurable and validated', () => {
		expect(listCreditPacks(parseEnv(base))).toEqual([
			{ credits: 1000, priceCents: 1900 },
			{ credits: 5000, priceCents: 7900 },
			{ credits: 20000, priceCents: 24900 },
		])
		expect(listCreditPacks(parseEnv({ ...base, CREDIT_PACKS: ' 500:990 , 2000:2900' }))).toEqual([
			{ credits: 500, priceCents: 990 },
			{ credits: 2000, priceCents: 2900 },
		])
		for (const bad of ['-5:100', '0:100', '100:-1', '100:10', '100', '100:200,100:300', 'abc']) {
			expect(() => parseEnv({ ...base, CREDIT_PACKS: bad }), bad).toThrow(/CREDIT_PACKS/)
		}
	})
})
