// Rate limits per IP and per email, through supabase-js, held in PostgreSQL so that two
// service instances (two processes) share them.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestAuthServer, type TestAuthServer } from './testing.server.ts'

const PASSWORD = 'correct horse 42'
let server: TestAuthServer
let twin: TestAuthServer

beforeAll(async () => {
	const env = {
		AUTH_RATE_LIMIT_IP: '5',
		AUTH_RATE_LIMIT_EMAIL: '3',
		AUTH_RATE_LIMIT_WINDOW_SECONDS: '600',
	}
	server = await startTestAuthServer(env, { mailMinIntervalSeconds: 0 })
	twin = await startTestAuthServer(env, { mailMinIntervalSeconds: 0 })
})
afterAll(async () => {
	await server?.close()
	await twin?.close()
})

const newEmail = () => `limited-${randomUUID().slice(0, 8)}@example.com`

test('failed sign-ins per email from one IP: 429 after the limit, even with the right password', async () => {
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	for (let i = 0; i < 3; i++) {
		const { error } = await server
			.client()
			.auth.signInWithPassword({ email, password: `wrong ${i} pass` })
		expect(error).toMatchObject({ status: 400, code: 'invalid_credentials' })
	}
	const blocked = await twin.client().auth.signInWithPassword({ email, password: PASSWORD })
	expect(blocked.error).toMatchObject({
		status: 429,
		code: 'over_request_rate_limit',
		message: 'Request rate limit reached',
	})
	// another address from the same IP is not blocked by that counter (5th sign-in from this IP)
	const other = newEmail()
	await server
		.admin()
		.auth.admin.createUser({ email: other, password: PASSWORD, email_confirm: true })
	expect(
		(await server.client().auth.signInWithPassword({ email: other, password: PASSWORD })).error,
	).toBeNull()
	// the 6th sign-in from this IP is over AUTH_RATE_LIMIT_IP
	const ipBlocked = await server
		.client()
		.auth.signInWithPassword({ email: other, password: PASSWORD })
	expect(ipBlocked.error).toMatchObject({ status: 429, code: 'over_request_rate_limit' })

	server.clock.advance(601)
	twin.clock.advance(601)
	const later = await server.client().auth.signInWithPassword({ email, password: PASSWORD })
	expect(later.error).toBeNull()
})

test('requests per IP across two processes: recover', async () => {
	const results = []
	for (let i = 0; i < 6; i++) {
		const instance = i % 2 === 0 ? server : twin
		results.push((await instance.client().auth.resetPasswordForEmail(newEmail())).error)
	}
	expect(results.slice(0, 5)).toEqual([null, null, null, null, null])
	expect(results[5]).toMatchObject({ status: 429, code: 'over_request_rate_limit' })
	// other actions have their own counters
	expect(
		(await server.client().auth.signUp({ email: newEmail(), password: PASSWORD })).error,
	).toBeNull()
})

test('mails per address: over_email_send_rate_limit', async () => {
	server.clock.advance(601)
	twin.clock.advance(601)
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	expect((await server.client().auth.signInWithOtp({ email })).error).toBeNull()
	expect((await twin.client().auth.resetPasswordForEmail(email)).error).toBeNull()
	expect((await server.client().auth.signInWithOtp({ email })).error).toBeNull()
	const fourth = await twin.client().auth.signInWithOtp({ email })
	expect(fourth.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' })
	expect(await server.mailCount(email)).toBe(3)
})

test('code verifications per address', async () => {
	server.clock.advance(601)
	twin.clock.advance(601)
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	await server.client().auth.signInWithOtp({ email })
	for (let i = 0; i < 3; i++) {
		const { error } = await server
			.client()
			.auth.verifyOtp({ email, token: `00000${i}`, type: 'email' })
		expect(error).toMatchObject({ status: 403, code: 'otp_expired' })
	}
	const code = (await server.lastMail(email)).code!
	const blocked = await twin.client().auth.verifyOtp({ email, token: code, type: 'email' })
	expect(blocked.error).toMatchObject({ status: 429, code: 'over_request_rate_limit' })
})

describe('failed sign-ins count per (email, IP), never per email alone', () => {
	// The attacker guesses from 127.0.0.1 (the default client); the owner comes from elsewhere.
	const OWNER_IP = '127.0.0.2'

	test('a fresh IP with the right password gets in while the guessing IP is refused', async () => {
		server.clock.advance(601)
		twin.clock.advance(601)
		const email = newEmail()
		await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
		for (let i = 0; i < 3; i++) {
			const { error } = await server
				.client()
				.auth.signInWithPassword({ email, password: `wrong ${i} pass` })
			expect(error).toMatchObject({ status: 400, code: 'invalid_credentials' })
		}
		// the guessing IP is refused, even with the right password, in both processes
		const refused = await twin.client().auth.signInWithPassword({ email, password: PASSWORD })
		expect(refused.error).toMatchObject({ status: 429, code: 'over_request_rate_limit' })
		// the owner, from another IP, signs in at once
		const owner = await server
			.client(OWNER_IP)
			.auth.signInWithPassword({ email, password: PASSWORD })
		expect(owner.error).toBeNull()
		expect(owner.data.session?.user.email).toBe(email)
		// and the guessing IP is still refused
		const still = await server.client().auth.signInWithPassword({ email, password: PASSWORD })
		expect(still.error).toMatchObject({ status: 429, code: 'over_request_rate_limit' })
	})
})

describe('backoff per (email, IP) before the hard limit', () => {
	let slow: TestAuthServer
	beforeAll(async () => {
		slow = await startTestAuthServer(
			{
				AUTH_RATE_LIMIT_IP: '1000',
				AUTH_RATE_LIMIT_EMAIL: '8',
				AUTH_RATE_LIMIT_WINDOW_SECONDS: '600',
			},
			{ mailMinIntervalSeconds: 0 },
		)
	})
	afterAll(async () => {
		await slow?.close()
	})

	const attempt = (email: string, password: string) =>
		slow.client().auth.signInWithPassword({ email, password })

	test('each failure past the third doubles the wait; the right password then works', async () => {
		const email = newEmail()
		await slow.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
		for (let i = 0; i < 3; i++)
			expect((await attempt(email, `wrong ${i} pass`)).error?.code).toBe('invalid_credentials')
		// 3 failures: wait 1 s after the last one
		expect((await attempt(email, PASSWORD)).error?.code).toBe('over_request_rate_limit')
		slow.clock.advance(1.1)
		expect((await attempt(email, 'wrong 3 pass')).error?.code).toBe('invalid_credentials')
		// 4 failures: 2 s
		slow.clock.advance(1.1)
		expect((await attempt(email, 'wrong 4 pass')).error?.code).toBe('over_request_rate_limit')
		slow.clock.advance(1)
		expect((await attempt(email, 'wrong 4 pass')).error?.code).toBe('invalid_credentials')
		// 5 failures: 4 s; then the right password gets in and clears the count
		slow.clock.advance(3)
		expect((await attempt(email, PASSWORD)).error?.code).toBe('over_request_rate_limit')
		slow.clock.advance(1.1)
		expect((await attempt(email, PASSWORD)).error).toBeNull()
		for (let i = 0; i < 3; i++)
			expect((await attempt(email, `wrong ${i} again`)).error?.code).toBe('invalid_credentials')
	})
})
