import { describe, expect, test } from 'vitest'
import { parseEnv } from './config.server.ts'

const base = { APP_SECRET: 'x'.repeat(32) }

describe('configuration', () => {
	test('defaults serve a local install', () => {
		const config = parseEnv({ ...base })
		expect(config).toMatchObject({
			PORT: 3000,
			APP_NAME: 'Leadsmith',
			APP_URL: 'http://localhost:3000',
			embeddedAuth: true,
			AUTH_AUTOCONFIRM: true,
			DEV_MAILBOX: true,
		})
	})

	test('a malformed variable stops start-up with its name', () => {
		expect(() => parseEnv({ ...base, PORT: 'eighty' })).toThrow(/PORT/)
		expect(() => parseEnv({ ...base, DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/)
		expect(() => parseEnv({ ...base, APP_SECRET: 'short' })).toThrow(
			/APP_SECRET: must be at least 32 characters/,
		)
	})

	test('Supabase settings come all together or not at all', () => {
		expect(() => parseEnv({ ...base, SUPABASE_URL: 'https://abc.supabase.co' })).toThrow(
			/SUPABASE_ANON_KEY: is required[\s\S]*SUPABASE_SERVICE_ROLE_KEY: is required/,
		)
		const config = parseEnv({
			...base,
			SUPABASE_URL: 'https://abc.supabase.co',
			SUPABASE_ANON_KEY: 'anon',
			SUPABASE_SERVICE_ROLE_KEY: 'service',
		})
		expect(config.embeddedAuth).toBe(false)
	})

	test('the local mailbox is off for a deployed production server', () => {
		expect(
			parseEnv({ ...base, NODE_ENV: 'production', APP_URL: 'https://app.example.com' }).DEV_MAILBOX,
		).toBe(false)
		expect(parseEnv({ ...base, NODE_ENV: 'production' }).DEV_MAILBOX).toBe(true)
		expect(parseEnv({ ...base, SMTP_URL: 'smtp://mail.example.com:587' }).DEV_MAILBOX).toBe(false)
	})

	test('URLs users set may reach private addresses only in development, or when ALLOW_PRIVATE_URLS says so', () => {
		// `npm start` (production, localhost APP_URL) listens on 0.0.0.0: guarded like a deployment
		expect(parseEnv({ ...base }).ALLOW_PRIVATE_URLS).toBe(false)
		expect(parseEnv({ ...base, NODE_ENV: 'test' }).ALLOW_PRIVATE_URLS).toBe(false)
		expect(parseEnv({ ...base, NODE_ENV: 'development' }).ALLOW_PRIVATE_URLS).toBe(true)
		expect(parseEnv({ ...base, ALLOW_PRIVATE_URLS: 'true' }).ALLOW_PRIVATE_URLS).toBe(true)
		expect(
			parseEnv({ ...base, NODE_ENV: 'development', ALLOW_PRIVATE_URLS: 'false' })
				.ALLOW_PRIVATE_URLS,
		).toBe(false)
		expect(() => parseEnv({ ...base, ALLOW_PRIVATE_URLS: 'maybe' })).toThrow(/ALLOW_PRIVATE_URLS/)
	})
})
