import { describe, expect, test } from 'vitest'
import { parseEnv } from '../../config.server.ts'
import { listCreditPacks, paymentProvider, testPaymentsAllowed } from './payments.server.ts'

const base = { APP_SECRET: 'x'.repeat(32) }
const stripe = { STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }

describe('payment configuration', () => {
	test('Stripe with a key; the test page outside production or on a local install; nothing on a public one', () => {
		const publicUrl = { APP_URL: 'https://leads.example.com' }
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'development' }))).toBe('test')
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'test', ...stripe }))).toBe('stripe')
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'production', ...publicUrl }))).toBeNull()
		expect(
			paymentProvider(parseEnv({ ...base, NODE_ENV: 'production', ...publicUrl, ...stripe })),
		).toBe('stripe')
		const onPurpose = parseEnv({
			...base,
			NODE_ENV: 'production',
			...publicUrl,
			PAYMENTS: 'test',
			...stripe,
		})
		expect(paymentProvider(onPurpose)).toBe('test')
		expect(testPaymentsAllowed(onPurpose)).toBe(true)
		expect(testPaymentsAllowed(parseEnv({ ...base, NODE_ENV: 'production', ...publicUrl }))).toBe(
			false,
		)
	})

	test('`npm install && npm start` (production on localhost) takes test payments', () => {
		for (const APP_URL of [
			undefined,
			'http://localhost:3000',
			'http://127.0.0.1:8080',
			'http://[::1]:3000',
		]) {
			const config = parseEnv({ ...base, NODE_ENV: 'production', ...(APP_URL ? { APP_URL } : {}) })
			expect(paymentProvider(config), APP_URL).toBe('test')
		}
		// a public address without Stripe is refused, and Stripe wins on localhost too
		expect(
			paymentProvider(parseEnv({ ...base, NODE_ENV: 'production', APP_URL: 'http://10.0.0.5' })),
		).toBeNull()
		expect(paymentProvider(parseEnv({ ...base, NODE_ENV: 'production', ...stripe }))).toBe('stripe')
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
