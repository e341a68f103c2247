// Conformance of the embedded auth service, driven only through the official supabase-js client
// (and, for emailed links, the way a browser opens them).
import { createHash, randomUUID } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createClient, type Session, type SupabaseClient } from '@supabase/supabase-js'
import { parseEnv } from '../config.server.ts'
import { openLink, startTestAuthServer, type TestAuthServer } from './testing.server.ts'

let server: TestAuthServer
let admin: SupabaseClient

const PASSWORD = 'correct horse 42'
/** another origin of the same deployment (AUTH_ALLOWED_ORIGINS) */
const ALLOWED_ORIGIN = 'http://app.leadsmith.test'

beforeAll(async () => {
	server = await startTestAuthServer({
		AUTH_RATE_LIMIT_IP: '100000',
		AUTH_RATE_LIMIT_EMAIL: '1000',
		AUTH_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
	})
	admin = server.admin()
})
afterAll(async () => {
	await server?.close()
})

const newEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.com`

async function signedUp(email = newEmail(), password = PASSWORD) {
	const { data, error } = await server.client().auth.signUp({ email, password })
	expect(error).toBeNull()
	return { email, password, session: data.session!, user: data.user! }
}

async function signIn(email: string, password = PASSWORD) {
	const client = server.client()
	const { data, error } = await client.auth.signInWithPassword({ email, password })
	expect(error).toBeNull()
	return { client, session: data.session! }
}

function claimsOf(token: string) {
	return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<
		string,
		any
	>
}

describe('sign-up and sign-in', () => {
	test('sign up (autoconfirm) returns a session and the user in Supabase shape', async () => {
		const email = newEmail('Mixed.Case')
		const { data, error } = await server.client().auth.signUp({
			email: email.toUpperCase(),
			password: PASSWORD,
			options: { data: { full_name: 'Ada Lovelace' } },
		})
		expect(error).toBeNull()
		const session = data.session!
		expect(session.token_type).toBe('bearer')
		expect(session.expires_in).toBe(3600)
		expect(session.expires_at).toBeGreaterThan(Date.now() / 1000 + 3500)
		expect(session.refresh_token).toEqual(expect.any(String))
		const user = data.user!
		expect(user).toMatchObject({
			aud: 'authenticated',
			role: 'authenticated',
			email: email.toLowerCase(),
			phone: '',
			app_metadata: { provider: 'email', providers: ['email'] },
			user_metadata: { full_name: 'Ada Lovelace', email_verified: true },
			is_anonymous: false,
		})
		expect(user.email_confirmed_at).toEqual(expect.any(String))
		expect(user.confirmed_at).toEqual(expect.any(String))
		expect(user.last_sign_in_at).toEqual(expect.any(String))
		expect(user.created_at).toEqual(expect.any(String))
		expect(user.updated_at).toEqual(expect.any(String))
		expect(user.identities).toHaveLength(1)
		expect(user.identities![0]).toMatchObject({ provider: 'email', id: user.id, user_id: user.id })
		expect(user.identities![0]!.identity_data).toMatchObject({
			sub: user.id,
			email: email.toLowerCase(),
		})

		const [header, claims] = session.access_token
			.split('.')
			.slice(0, 2)
			.map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()))
		expect(header).toMatchObject({ alg: 'ES256', kid: expect.any(String), typ: 'JWT' })
		expect(claims).toMatchObject({
			iss: `${server.url}/auth/v1`,
			sub: user.id,
			aud: 'authenticated',
			email: email.toLowerCase(),
			phone: '',
			role: 'authenticated',
			aal: 'aal1',
			amr: [{ method: 'password', timestamp: expect.any(Number) }],
			session_id: expect.any(String),
			is_anonymous: false,
			app_metadata: { provider: 'email', providers: ['email'] },
			user_metadata: { full_name: 'Ada Lovelace' },
		})
		expect(claims.exp - claims.iat).toBe(3600)
	})

	test('sign in with the password', async () => {
		const { email, user } = await signedUp()
		const { data, error } = await server
			.client()
			.auth.signInWithPassword({ email, password: PASSWORD })
		expect(error).toBeNull()
		expect(data.user!.id).toBe(user.id)
		expect(data.session!.access_token).not.toBe('')
		expect(claimsOf(data.session!.access_token).session_id).not.toBe(
			claimsOf((await signIn(email)).session.access_token).session_id,
		)
	})

	test('a wrong password or unknown email is invalid_credentials', async () => {
		const { email } = await signedUp()
		for (const attempt of [
			{ email, password: 'wrong password 1' },
			{ email: newEmail('nobody'), password: PASSWORD },
		]) {
			const { data, error } = await server.client().auth.signInWithPassword(attempt)
			expect(data.session).toBeNull()
			expect(error).toMatchObject({
				status: 400,
				code: 'invalid_credentials',
				message: 'Invalid login credentials',
			})
		}
	})

	test('a weak password is weak_password (422) with reasons', async () => {
		const client = server.client()
		const short = await client.auth.signUp({ email: newEmail(), password: 'abc1' })
		expect(short.error).toMatchObject({
			name: 'AuthWeakPasswordError',
			status: 422,
			code: 'weak_password',
			reasons: ['length'],
		})
		expect(short.error!.message).toContain('Password should be at least 8 characters.')
		const noDigits = await client.auth.signUp({ email: newEmail(), password: 'onlyletters' })
		expect(noDigits.error).toMatchObject({
			status: 422,
			code: 'weak_password',
			reasons: ['characters'],
		})
		const both = await client.auth.signUp({ email: newEmail(), password: 'abc' })
		expect(both.error).toMatchObject({ reasons: ['length', 'characters'] })
	})

	test('the password policy is a setting (AUTH_PASSWORD_MIN_LENGTH, AUTH_PASSWORD_REQUIRED_CHARACTERS)', async () => {
		const strict = await startTestAuthServer({
			AUTH_RATE_LIMIT_IP: '100000',
			AUTH_PASSWORD_MIN_LENGTH: '12',
			AUTH_PASSWORD_REQUIRED_CHARACTERS:
				'abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:!@#$%',
		})
		try {
			const client = strict.client()
			const weak = await client.auth.signUp({ email: newEmail(), password: 'correct horse 42' })
			expect(weak.error).toMatchObject({
				name: 'AuthWeakPasswordError',
				status: 422,
				code: 'weak_password',
				reasons: ['characters'],
			})
			expect(weak.error!.message).toBe(
				'Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, !@#$%.',
			)
			const short = await client.auth.signUp({ email: newEmail(), password: 'Short!a' })
			expect(short.error).toMatchObject({ reasons: ['length'] })
			expect(short.error!.message).toBe('Password should be at least 12 characters.')
			const fine = await client.auth.signUp({ email: newEmail(), password: 'Correct horse!' })
			expect(fine.error).toBeNull()
			// no required characters at all, GoTrue's minimum length of 6
			const lax = parseEnv({
				APP_SECRET: 'x'.repeat(32),
				AUTH_PASSWORD_MIN_LENGTH: '6',
				AUTH_PASSWORD_REQUIRED_CHARACTERS: ':',
			})
			expect(lax.AUTH_PASSWORD_REQUIRED_CHARACTERS).toEqual([])
		} finally {
			await strict.close()
		}
	})

	test('a malformed email is validation_failed', async () => {
		for (const email of ['not-an-email', 'a@b', 'a b@example.com', 'x@exa mple.com']) {
			const { error } = await server.client().auth.signUp({ email, password: PASSWORD })
			expect(error).toMatchObject({
				status: 400,
				code: 'validation_failed',
				message: 'Unable to validate email address: invalid format',
			})
		}
	})

	test('an email already registered is user_already_exists', async () => {
		const { email } = await signedUp()
		const { data, error } = await server.client().auth.signUp({ email, password: 'another pass 9' })
		expect(data.session).toBeNull()
		expect(error).toMatchObject({
			status: 422,
			code: 'user_already_exists',
			message: 'User already registered',
		})
		const created = await admin.auth.admin.createUser({ email, password: PASSWORD })
		expect(created.error).toMatchObject({ status: 422, code: 'email_exists' })
	})

	test('an invited address that signs up (autoconfirm) gets its password and a session', async () => {
		const email = newEmail('invitee')
		await admin.auth.admin.inviteUserByEmail(email)
		const { data, error } = await server.client().auth.signUp({ email, password: PASSWORD })
		expect(error).toBeNull()
		expect(data.session!.user.email_confirmed_at).toEqual(expect.any(String))
		expect(
			(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
		).toBeNull()
		// from then on it is a registered address
		const again = await server.client().auth.signUp({ email, password: 'some other pass 1' })
		expect(again.error).toMatchObject({ code: 'user_already_exists' })
	})

	test('GET /settings describes the email provider', async () => {
		const response = await fetch(`${server.url}/auth/v1/settings`)
		const settings = await response.json()
		expect(settings).toMatchObject({
			external: { email: true, phone: false },
			disable_signup: false,
			mailer_autoconfirm: true,
		})
	})
})

describe('tokens', () => {
	test('getUser returns the user of the access token', async () => {
		const { email, session, user } = await signedUp()
		const { data, error } = await server.client().auth.getUser(session.access_token)
		expect(error).toBeNull()
		expect(data.user).toMatchObject({ id: user.id, email, aud: 'authenticated' })
	})

	test('getClaims verifies through the JWKS without any database query', async () => {
		const { session, user } = await signedUp()
		const client = server.client()
		const jwks = await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).clone()
		expect(jwks.headers.get('cache-control')).toBe('public, max-age=600')
		const { keys } = await jwks.json()
		expect(keys).toHaveLength(1)
		expect(keys[0]).toMatchObject({
			kty: 'EC',
			crv: 'P-256',
			alg: 'ES256',
			use: 'sig',
			key_ops: ['verify'],
			kid: expect.any(String),
		})
		expect(keys[0]).not.toHaveProperty('d')

		server.queries.length = 0
		const { data, error } = await client.auth.getClaims(session.access_token)
		expect(error).toBeNull()
		expect(data!.claims).toMatchObject({
			sub: user.id,
			role: 'authenticated',
			session_id: expect.any(String),
		})
		expect(data!.header.kid).toBe(keys[0].kid)
		// and a second time, from the client's JWKS cache
		await client.auth.getClaims(session.access_token)
		expect(server.queries).toEqual([])

		// the counter does see the queries of a request that needs the database
		await client.auth.getUser(session.access_token)
		expect(server.queries.length).toBeGreaterThan(0)
	})

	test('a token signed by a foreign key is rejected (bad_jwt)', async () => {
		const { session } = await signedUp()
		const { kid } = (await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).json())
			.keys[0]
		const { privateKey } = await generateKeyPair('ES256')
		const forged = await new SignJWT(claimsOf(session.access_token))
			.setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
			.sign(privateKey)
		const client = server.client()
		const byUser = await client.auth.getUser(forged)
		expect(byUser.error).toMatchObject({ status: 403, code: 'bad_jwt' })
		const byClaims = await client.auth.getClaims(forged)
		expect(byClaims.error).toMatchObject({ name: 'AuthInvalidJwtError' })

		const otherKid = await new SignJWT(claimsOf(session.access_token))
			.setProtectedHeader({ alg: 'ES256', kid: randomUUID() })
			.sign(privateKey)
		expect((await client.auth.getUser(otherKid)).error).toMatchObject({
			status: 403,
			code: 'bad_jwt',
		})
		void exportJWK
	})

	test('refresh rotates the refresh token and keeps the session', async () => {
		const { session } = await signedUp()
		const client = server.client()
		const first = await client.auth.refreshSession({ refresh_token: session.refresh_token })
		expect(first.error).toBeNull()
		const next = first.data.session!
		expect(next.refresh_token).not.toBe(session.refresh_token)
		expect(claimsOf(next.access_token).session_id).toBe(claimsOf(session.access_token).session_id)
		expect(claimsOf(next.access_token).amr).toEqual(claimsOf(session.access_token).amr)
		const second = await server.client().auth.refreshSession({ refresh_token: next.refresh_token })
		expect(second.error).toBeNull()
		expect(second.data.session!.refresh_token).not.toBe(next.refresh_token)
	})

	test('reusing a rotated refresh token within 10 s gives the active token', async () => {
		const { session } = await signedUp()
		const rotated = (
			await server.client().auth.refreshSession({ refresh_token: session.refresh_token })
		).data.session!
		server.clock.advance(5)
		const again = await server
			.client()
			.auth.refreshSession({ refresh_token: session.refresh_token })
		expect(again.error).toBeNull()
		expect(again.data.session!.refresh_token).toBe(rotated.refresh_token)
		// concurrent refreshes with the same token all succeed with one active token
		const parallel = await Promise.all(
			Array.from({ length: 5 }, () =>
				server.client().auth.refreshSession({ refresh_token: rotated.refresh_token }),
			),
		)
		const tokens = new Set(parallel.map((r) => r.data.session?.refresh_token))
		expect(parallel.every((r) => r.error === null)).toBe(true)
		expect(tokens.size).toBe(1)
	})

	test('after 10 s, the parent of the active refresh token still gets the active token', async () => {
		const { session } = await signedUp()
		const rotated = (
			await server.client().auth.refreshSession({ refresh_token: session.refresh_token })
		).data.session!
		server.clock.advance(11)
		// the client never stored the answer to its refresh and presents the old token again
		const again = await server
			.client()
			.auth.refreshSession({ refresh_token: session.refresh_token })
		expect(again.error).toBeNull()
		expect(again.data.session!.refresh_token).toBe(rotated.refresh_token)
		const user = await server.client().auth.getUser(again.data.session!.access_token)
		expect(user.error).toBeNull()
	})

	test('after 10 s, an older refresh token than the parent revokes the session', async () => {
		const { session } = await signedUp()
		const second = (
			await server.client().auth.refreshSession({ refresh_token: session.refresh_token })
		).data.session!
		const third = (
			await server.client().auth.refreshSession({ refresh_token: second.refresh_token })
		).data.session!
		server.clock.advance(11)
		const replay = await server
			.client()
			.auth.refreshSession({ refresh_token: session.refresh_token })
		expect(replay.data.session).toBeNull()
		expect(replay.error).toMatchObject({ status: 400, code: 'refresh_token_already_used' })
		// the whole session is gone: the active refresh token and the access token stop working
		const child = await server.client().auth.refreshSession({ refresh_token: third.refresh_token })
		expect(child.error).toMatchObject({ status: 400, code: 'refresh_token_not_found' })
		const user = await server.client().auth.getUser(third.access_token)
		expect(user.error).toMatchObject({ name: 'AuthSessionMissingError' })
	})

	test('the reuse interval is a setting (AUTH_REFRESH_TOKEN_REUSE_INTERVAL)', async () => {
		const strict = await startTestAuthServer({
			AUTH_RATE_LIMIT_IP: '100000',
			AUTH_REFRESH_TOKEN_REUSE_INTERVAL: '0',
		})
		try {
			const { data } = await strict
				.client()
				.auth.signUp({ email: newEmail('strict'), password: PASSWORD })
			const second = (
				await strict.client().auth.refreshSession({ refresh_token: data.session!.refresh_token })
			).data.session!
			await strict.client().auth.refreshSession({ refresh_token: second.refresh_token })
			strict.clock.advance(1)
			const replay = await strict
				.client()
				.auth.refreshSession({ refresh_token: data.session!.refresh_token })
			expect(replay.error).toMatchObject({ status: 400, code: 'refresh_token_already_used' })
		} finally {
			await strict.close()
		}
	})

	test('an unknown refresh token is refresh_token_not_found', async () => {
		const unknown = await server
			.client()
			.auth.refreshSession({ refresh_token: 'not-a-token-at-all' })
		expect(unknown.error).toMatchObject({ status: 400, code: 'refresh_token_not_found' })
	})
})

describe('user updates and sign-out', () => {
	test('updateUser changes user data (merged)', async () => {
		const { email } = await signedUp()
		const { client } = await signIn(email)
		await client.auth.updateUser({ data: { full_name: 'Grace', plan: 'pro' } })
		const { data, error } = await client.auth.updateUser({ data: { plan: null, team: 'blue' } })
		expect(error).toBeNull()
		expect(data.user!.user_metadata).toMatchObject({
			full_name: 'Grace',
			team: 'blue',
			email_verified: true,
		})
		expect(data.user!.user_metadata).not.toHaveProperty('plan')
		const refreshed = await client.auth.refreshSession()
		expect(claimsOf(refreshed.data.session!.access_token).user_metadata).toMatchObject({
			full_name: 'Grace',
			team: 'blue',
		})
	})

	test('updateUser changes the password and ends the other sessions', async () => {
		const { email } = await signedUp()
		const { client } = await signIn(email)
		const other = await signIn(email)
		const same = await client.auth.updateUser({ password: PASSWORD })
		expect(same.error).toMatchObject({ status: 422, code: 'same_password' })
		const weak = await client.auth.updateUser({ password: 'short' })
		expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' })
		const { error } = await client.auth.updateUser({ password: 'brand new pass 7' })
		expect(error).toBeNull()
		expect(
			(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
		).toMatchObject({ code: 'invalid_credentials' })
		expect(
			(await server.client().auth.signInWithPassword({ email, password: 'brand new pass 7' }))
				.error,
		).toBeNull()
		expect((await client.auth.getUser()).error).toBeNull()
		expect((await other.client.auth.getUser()).error).toMatchObject({
			name: 'AuthSessionMissingError',
		})
	})

	test('updateUser changes the email through the mailed links (both addresses confirm)', async () => {
		const { email, user } = await signedUp()
		const { client } = await signIn(email)
		const taken = (await signedUp()).email
		expect((await client.auth.updateUser({ email: taken })).error).toMatchObject({
			status: 422,
			code: 'email_exists',
		})

		const target = newEmail('moved')
		const { data, error } = await client.auth.updateUser(
			{ email: target },
			{ emailRedirectTo: `${server.url}/settings` },
		)
		expect(error).toBeNull()
		expect(data.user!.email).toBe(email)
		expect(data.user!.new_email).toBe(target)
		const mail = await server.lastMail(target)
		expect(mail.subject).toBe('Confirm your new email address for Leadsmith')
		expect(mail.text_body).toContain('Leadsmith')
		// the current address confirms too (AUTH_SECURE_EMAIL_CHANGE; email-change.test.ts)
		const fromCurrent = await openLink((await server.lastMail(email)).link!)
		expect(fromCurrent.fragment.get('message')).toMatch(/^Confirmation link accepted/)
		const opened = await openLink(mail.link!)
		expect(opened.url.origin + opened.url.pathname).toBe(`${server.url}/settings`)
		expect(opened.fragment.get('type')).toBe('email_change')
		const { data: after } = await client.auth.getUser(opened.fragment.get('access_token')!)
		expect(after.user).toMatchObject({ id: user.id, email: target })
		expect(after.user!.new_email).toBeUndefined()
		expect(
			(await server.client().auth.signInWithPassword({ email: target, password: PASSWORD })).error,
		).toBeNull()
		const notice = await server.lastMail(email)
		expect(notice.subject).toBe('Your Leadsmith email address was changed')
		// the link works once
		const reused = await openLink(mail.link!)
		expect(reused.fragment.get('error_code')).toBe('otp_expired')
	})

	test('signOut scopes: others, local, global', async () => {
		const { email } = await signedUp()
		const a = await signIn(email)
		const b = await signIn(email)
		const c = await signIn(email)
		const alive = async (s: Session) =>
			(await server.client().auth.getUser(s.access_token)).error === null

		expect((await a.client.auth.signOut({ scope: 'others' })).error).toBeNull()
		expect(await alive(a.session)).toBe(true)
		expect(await alive(b.session)).toBe(false)
		expect(await alive(c.session)).toBe(false)
		expect(
			(await server.client().auth.refreshSession({ refresh_token: b.session.refresh_token })).error,
		).toMatchObject({ code: 'refresh_token_not_found' })

		const d = await signIn(email)
		expect((await d.client.auth.signOut({ scope: 'local' })).error).toBeNull()
		expect(await alive(d.session)).toBe(false)
		expect(await alive(a.session)).toBe(true)

		const e = await signIn(email)
		expect((await a.client.auth.signOut()).error).toBeNull()
		expect(await alive(a.session)).toBe(false)
		expect(await alive(e.session)).toBe(false)
		const gone = await server.client().auth.getUser(e.session.access_token)
		expect(gone.error).toMatchObject({ name: 'AuthSessionMissingError' })
	})
})

describe('emailed links', () => {
	test('password reset through the mailed link', async () => {
		const { email } = await signedUp()
		const unknown = await server.client().auth.resetPasswordForEmail(newEmail('ghost'))
		expect(unknown.error).toBeNull()

		const { error } = await server
			.client()
			.auth.resetPasswordForEmail(email, { redirectTo: `${server.url}/reset-password` })
		expect(error).toBeNull()
		const mail = await server.lastMail(email)
		expect(mail.subject).toBe('Reset your Leadsmith password')
		expect(mail.link).toMatch(
			new RegExp(`^${server.url}/auth/v1/verify\\?token=[0-9a-f]{56}&type=recovery&redirect_to=`),
		)
		const opened = await openLink(mail.link!)
		expect(opened.url.pathname).toBe('/reset-password')
		expect(opened.fragment.get('type')).toBe('recovery')
		const client = server.client()
		const set = await client.auth.setSession({
			access_token: opened.fragment.get('access_token')!,
			refresh_token: opened.fragment.get('refresh_token')!,
		})
		expect(set.error).toBeNull()
		expect(claimsOf(set.data.session!.access_token).amr[0].method).toBe('otp')
		expect((await client.auth.updateUser({ password: 'reset pass 2024' })).error).toBeNull()
		expect(
			(await server.client().auth.signInWithPassword({ email, password: 'reset pass 2024' })).error,
		).toBeNull()
	})

	test('redirects off APP_URL fall back to APP_URL (no open redirect)', async () => {
		const { email } = await signedUp()
		await server
			.client()
			.auth.resetPasswordForEmail(email, { redirectTo: 'https://evil.example/steal' })
		const opened = await openLink((await server.lastMail(email)).link!)
		expect(opened.url.origin).toBe(server.url)
		expect(opened.url.host).not.toContain('evil')
	})

	test('a bad or used link redirects with the error', async () => {
		const { email } = await signedUp()
		await server
			.client()
			.auth.resetPasswordForEmail(email, { redirectTo: `${server.url}/reset-password` })
		const link = (await server.lastMail(email)).link!
		const bad = await openLink(link.replace(/token=[0-9a-f]+/, 'token=deadbeef'))
		expect(bad.url.pathname).toBe('/reset-password')
		expect(Object.fromEntries(bad.fragment)).toMatchObject({
			error: 'access_denied',
			error_code: 'otp_expired',
			error_description: 'Email link is invalid or has expired',
		})
		server.clock.advance(3601)
		const late = await openLink(link)
		expect(late.fragment.get('error_code')).toBe('otp_expired')
	})

	test('magic link via signInWithOtp (existing and new users)', async () => {
		const { email, user } = await signedUp()
		const { error } = await server
			.client()
			.auth.signInWithOtp({ email, options: { emailRedirectTo: `${server.url}/` } })
		expect(error).toBeNull()
		const mail = await server.lastMail(email)
		expect(mail.subject).toBe('Your Leadsmith sign-in link')
		const opened = await openLink(mail.link!)
		expect(opened.fragment.get('type')).toBe('magiclink')
		const { data } = await server.client().auth.getUser(opened.fragment.get('access_token')!)
		expect(data.user!.id).toBe(user.id)

		// the six-digit code of the mail works too (verifyOtp with email + token)
		await server.clock.advance(61)
		await server.client().auth.signInWithOtp({ email })
		const code = (await server.lastMail(email)).code!
		const verified = await server.client().auth.verifyOtp({ email, token: code, type: 'email' })
		expect(verified.error).toBeNull()
		expect(verified.data.session!.user.id).toBe(user.id)
		const wrong = await server.client().auth.verifyOtp({ email, token: '000000', type: 'email' })
		expect(wrong.error).toMatchObject({ status: 403, code: 'otp_expired' })

		const fresh = newEmail('fresh')
		const refused = await server
			.client()
			.auth.signInWithOtp({ email: fresh, options: { shouldCreateUser: false } })
		expect(refused.error).toMatchObject({ status: 422, code: 'otp_disabled' })
		expect((await server.client().auth.signInWithOtp({ email: fresh })).error).toBeNull()
		const freshLink = await openLink((await server.lastMail(fresh)).link!)
		const freshUser = await server.client().auth.getUser(freshLink.fragment.get('access_token')!)
		expect(freshUser.data.user).toMatchObject({ email: fresh })
		expect(freshUser.data.user!.email_confirmed_at).toEqual(expect.any(String))
	})

	test('too many mails of one kind: over_email_send_rate_limit', async () => {
		const { email } = await signedUp()
		expect((await server.client().auth.resetPasswordForEmail(email)).error).toBeNull()
		const again = await server.client().auth.resetPasswordForEmail(email)
		expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' })
		expect(again.error!.message).toMatch(
			/^For security purposes, you can only request this after \d+ seconds\.$/,
		)
	})

	test('PKCE: the link gives ?code= and exchangeCodeForSession signs in', async () => {
		const { email, user } = await signedUp()
		const client = server.pkceClient()
		expect(
			(
				await client.auth.signInWithOtp({
					email,
					options: { emailRedirectTo: `${server.url}/auth/confirm` },
				})
			).error,
		).toBeNull()
		const mail = await server.lastMail(email)
		expect(mail.link).toContain('token=pkce_')
		const opened = await openLink(mail.link!)
		expect(opened.url.pathname).toBe('/auth/confirm')
		expect(opened.url.hash).toBe('')
		const code = opened.query.get('code')!
		expect(code).toMatch(/^[0-9a-f-]{36}$/)

		// someone else's verifier does not match
		const intruder = server.pkceClient()
		await intruder.auth.signInWithOtp({ email: (await signedUp()).email })
		const stolen = await intruder.auth.exchangeCodeForSession(code)
		expect(stolen.error).toMatchObject({ status: 400, code: 'bad_code_verifier' })

		const { data, error } = await client.auth.exchangeCodeForSession(code)
		expect(error).toBeNull()
		expect(data.session!.user.id).toBe(user.id)
		expect(claimsOf(data.session!.access_token).amr[0].method).toBe('magiclink')
		expect((await client.auth.getUser()).data.user!.id).toBe(user.id)

		// the flow state is gone after use
		const intruder2 = server.pkceClient()
		await intruder2.auth.signInWithOtp({ email: (await signedUp()).email })
		const replay = await intruder2.auth.exchangeCodeForSession(code)
		expect(replay.error).toMatchObject({ status: 404, code: 'flow_state_not_found' })
	})

	test('PKCE: a code not exchanged in time is flow_state_expired', async () => {
		const { email } = await signedUp()
		const client = server.pkceClient()
		await client.auth.resetPasswordForEmail(email, { redirectTo: `${server.url}/auth/confirm` })
		const opened = await openLink((await server.lastMail(email)).link!)
		server.clock.advance(301)
		const late = await client.auth.exchangeCodeForSession(opened.query.get('code')!)
		expect(late.error).toMatchObject({ status: 422, code: 'flow_state_expired' })
	})

	test("a reset link to the app's /auth/confirm carries a token hash any browser can verify", async () => {
		const { email, user } = await signedUp()
		await server.client().auth.resetPasswordForEmail(email, {
			redirectTo: `${server.url}/auth/confirm?next=/reset-password`,
		})
		const mail = await server.lastMail(email)
		const link = new URL(mail.link!)
		expect(`${link.origin}${link.pathname}`).toBe(`${server.url}/auth/confirm`)
		expect(link.searchParams.get('next')).toBe('/reset-password')
		expect(link.searchParams.get('type')).toBe('recovery')
		// a client that never asked (no cookie, no verifier) verifies it
		const other = server.client()
		const { data, error } = await other.auth.verifyOtp({
			token_hash: link.searchParams.get('token_hash')!,
			type: 'recovery',
		})
		expect(error).toBeNull()
		expect(data.session!.user.id).toBe(user.id)
		// once only
		const again = await server.client().auth.verifyOtp({
			token_hash: link.searchParams.get('token_hash')!,
			type: 'recovery',
		})
		expect(again.error).toMatchObject({ status: 403, code: 'otp_expired' })
	})
})

describe('admin', () => {
	test('a user token or the anon key is not admin', async () => {
		const { error } = await server.client().auth.admin.listUsers()
		expect(error).toMatchObject({ status: 403, code: 'not_admin' })
	})

	test('createUser, getUserById, listUsers with pagination', async () => {
		const label = `page${randomUUID().slice(0, 4)}`
		const created = []
		for (let i = 0; i < 3; i++) {
			const { data, error } = await admin.auth.admin.createUser({
				email: newEmail(label),
				password: PASSWORD,
				email_confirm: true,
				user_metadata: { n: i },
				app_metadata: { plan: 'gold' },
			})
			expect(error).toBeNull()
			created.push(data.user!)
		}
		expect(created[0]).toMatchObject({
			app_metadata: { provider: 'email', providers: ['email'], plan: 'gold' },
			user_metadata: { n: 0 },
			email_confirmed_at: expect.any(String),
		})
		expect(
			(
				await server
					.client()
					.auth.signInWithPassword({ email: created[0]!.email!, password: PASSWORD })
			).error,
		).toBeNull()
		const unconfirmed = await admin.auth.admin.createUser({
			email: newEmail(label),
			password: PASSWORD,
		})
		expect(
			(
				await server
					.client()
					.auth.signInWithPassword({ email: unconfirmed.data.user!.email!, password: PASSWORD })
			).error,
		).toMatchObject({
			status: 400,
			code: 'email_not_confirmed',
		})

		const got = await admin.auth.admin.getUserById(created[1]!.id)
		expect(got.data.user).toMatchObject({ id: created[1]!.id, email: created[1]!.email })
		const missing = await admin.auth.admin.getUserById(randomUUID())
		expect(missing.error).toMatchObject({ status: 404, code: 'user_not_found' })

		const all = await admin.auth.admin.listUsers({ page: 1, perPage: 1000 })
		const total = all.data.users.length
		expect(total).toBeGreaterThanOrEqual(4)
		// (auth-js reads only the first digit of a page number in the Link header: stay below 10 pages)
		const perPage = Math.max(2, Math.ceil(total / 4))
		const page1 = await admin.auth.admin.listUsers({ page: 1, perPage })
		expect(page1.error).toBeNull()
		expect(page1.data.users).toHaveLength(perPage)
		expect(page1.data).toMatchObject({
			aud: 'authenticated',
			total,
			nextPage: 2,
			lastPage: Math.ceil(total / perPage),
		})
		const page2 = await admin.auth.admin.listUsers({ page: 2, perPage })
		expect(page2.data.users.map((u) => u.id)).not.toContain(page1.data.users[0]!.id)
		// newest first
		expect(page1.data.users[0]!.id).toBe(unconfirmed.data.user!.id)
	})

	test('updateUserById: ban, metadata, password, email, email_confirm', async () => {
		const { email, user } = await signedUp()
		const { client } = await signIn(email)
		const banned = await admin.auth.admin.updateUserById(user.id, { ban_duration: '24h' })
		expect(banned.error).toBeNull()
		const until = new Date(banned.data.user!.banned_until!).getTime()
		expect(Math.abs(until - (server.clock.now().getTime() + 24 * 3600 * 1000))).toBeLessThan(60_000)
		expect(
			(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
		).toMatchObject({ status: 400, code: 'user_banned' })
		expect((await client.auth.getUser()).error).toMatchObject({ status: 403, code: 'user_banned' })
		expect(
			(await admin.auth.admin.updateUserById(user.id, { ban_duration: 'forever' })).error,
		).toMatchObject({ status: 400, code: 'validation_failed' })
		const unbanned = await admin.auth.admin.updateUserById(user.id, { ban_duration: 'none' })
		expect(unbanned.data.user!.banned_until).toBeUndefined()
		expect(
			(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
		).toBeNull()

		const target = newEmail('renamed')
		const updated = await admin.auth.admin.updateUserById(user.id, {
			email: target,
			password: 'admin set pass 1',
			app_metadata: { role: 'editor' },
			user_metadata: { nickname: 'Z' },
		})
		expect(updated.error).toBeNull()
		expect(updated.data.user).toMatchObject({
			email: target,
			app_metadata: { provider: 'email', providers: ['email'], role: 'editor' },
			user_metadata: { nickname: 'Z' },
		})
		expect(
			(
				await server
					.client()
					.auth.signInWithPassword({ email: target, password: 'admin set pass 1' })
			).error,
		).toBeNull()
		expect(
			(await admin.auth.admin.updateUserById(user.id, { password: 'weak' })).error,
		).toMatchObject({ code: 'weak_password' })

		const pending = await admin.auth.admin.createUser({ email: newEmail(), password: PASSWORD })
		const confirmed = await admin.auth.admin.updateUserById(pending.data.user!.id, {
			email_confirm: true,
		})
		expect(confirmed.data.user!.email_confirmed_at).toEqual(expect.any(String))
	})

	test('deleteUser removes the user and its sessions', async () => {
		const { email, user, session } = await signedUp()
		const { error } = await admin.auth.admin.deleteUser(user.id)
		expect(error).toBeNull()
		expect((await admin.auth.admin.getUserById(user.id)).error).toMatchObject({
			status: 404,
			code: 'user_not_found',
		})
		expect(
			(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
		).toMatchObject({ code: 'invalid_credentials' })
		expect((await server.client().auth.getUser(session.access_token)).error).toMatchObject({
			status: 403,
			code: 'user_not_found',
		})

		const soft = await signedUp()
		expect((await admin.auth.admin.deleteUser(soft.user.id, true)).error).toBeNull()
		expect((await admin.auth.admin.getUserById(soft.user.id)).error).toMatchObject({ status: 404 })
		// the address is free again
		expect(
			(await server.client().auth.signUp({ email: soft.email, password: PASSWORD })).error,
		).toBeNull()
	})

	test('inviteUserByEmail mails a link that signs the user in', async () => {
		const email = newEmail('invited')
		const { data, error } = await admin.auth.admin.inviteUserByEmail(email, {
			data: { team: 'red' },
			redirectTo: `${server.url}/accept-invitation`,
		})
		expect(error).toBeNull()
		expect(data.user).toMatchObject({
			email,
			user_metadata: { team: 'red' },
			invited_at: expect.any(String),
		})
		expect(data.user!.email_confirmed_at).toBeNull()
		const mail = await server.lastMail(email)
		expect(mail.subject).toBe('You have been invited to Leadsmith')
		const opened = await openLink(mail.link!)
		expect(opened.url.pathname).toBe('/accept-invitation')
		expect(opened.fragment.get('type')).toBe('invite')
		const client = server.client()
		await client.auth.setSession({
			access_token: opened.fragment.get('access_token')!,
			refresh_token: opened.fragment.get('refresh_token')!,
		})
		const me = (await client.auth.getUser()).data.user!
		expect(me.email_confirmed_at).toEqual(expect.any(String))
		expect((await client.auth.updateUser({ password: 'invited pass 1' })).error).toBeNull()
		expect(
			(await server.client().auth.signInWithPassword({ email, password: 'invited pass 1' })).error,
		).toBeNull()

		const again = await admin.auth.admin.inviteUserByEmail(email)
		expect(again.error).toMatchObject({ status: 422, code: 'email_exists' })
	})

	test('generateLink: signup, invite, magiclink, recovery', async () => {
		const email = newEmail('generated')
		const signupLink = await admin.auth.admin.generateLink({
			type: 'signup',
			email,
			password: PASSWORD,
			options: { redirectTo: `${server.url}/welcome` },
		})
		expect(signupLink.error).toBeNull()
		const props = signupLink.data.properties!
		expect(props).toMatchObject({
			verification_type: 'signup',
			redirect_to: `${server.url}/welcome`,
			email_otp: expect.stringMatching(/^\d{6}$/),
		})
		expect(props.hashed_token).toBe(
			createHash('sha224')
				.update(email + props.email_otp)
				.digest('hex'),
		)
		expect(props.action_link).toBe(
			`${server.url}/auth/v1/verify?token=${props.hashed_token}&type=signup&redirect_to=${encodeURIComponent(`${server.url}/welcome`)}`,
		)
		expect(signupLink.data.user).toMatchObject({ email, email_confirmed_at: null })
		expect(await server.mailCount(email)).toBe(0)
		const confirmed = await server
			.client()
			.auth.verifyOtp({ token_hash: props.hashed_token, type: 'signup' })
		expect(confirmed.error).toBeNull()
		expect(confirmed.data.user!.email_confirmed_at).toEqual(expect.any(String))
		expect(
			(await server.client().auth.verifyOtp({ token_hash: props.hashed_token, type: 'signup' }))
				.error,
		).toMatchObject({ status: 403, code: 'otp_expired' })

		const magic = await admin.auth.admin.generateLink({ type: 'magiclink', email })
		const viaCode = await server
			.client()
			.auth.verifyOtp({ email, token: magic.data.properties!.email_otp, type: 'magiclink' })
		expect(viaCode.error).toBeNull()
		expect(viaCode.data.session!.user.email).toBe(email)

		const recovery = await admin.auth.admin.generateLink({ type: 'recovery', email })
		const opened = await openLink(recovery.data.properties!.action_link)
		expect(opened.fragment.get('type')).toBe('recovery')
		expect(opened.fragment.get('access_token')).toBeTruthy()
		const noUser = await admin.auth.admin.generateLink({
			type: 'recovery',
			email: newEmail('ghost'),
		})
		expect(noUser.error).toMatchObject({ status: 404, code: 'user_not_found' })

		const inviteEmail = newEmail('generated-invite')
		const invited = await admin.auth.admin.generateLink({ type: 'invite', email: inviteEmail })
		expect(invited.data.user).toMatchObject({ email: inviteEmail, invited_at: expect.any(String) })
		const accepted = await server
			.client()
			.auth.verifyOtp({ token_hash: invited.data.properties!.hashed_token, type: 'invite' })
		expect(accepted.data.session!.user.email).toBe(inviteEmail)
		expect(
			(await admin.auth.admin.generateLink({ type: 'invite', email: inviteEmail })).error,
		).toMatchObject({ status: 422, code: 'email_exists' })
	})
})

describe('reauthentication (AUTH_SECURE_PASSWORD_CHANGE)', () => {
	test('a password change from an old session needs the nonce GET /reauthenticate mails', async () => {
		const secure = await startTestAuthServer({
			AUTH_RATE_LIMIT_IP: '100000',
			AUTH_RATE_LIMIT_EMAIL: '1000',
			AUTH_SECURE_PASSWORD_CHANGE: 'true',
		})
		try {
			const email = newEmail('reauth')
			const client = secure.pkceClient()
			await client.auth.signUp({ email, password: PASSWORD })
			// signed in just now: no nonce needed
			expect((await client.auth.updateUser({ password: 'fresh password 1' })).error).toBeNull()
			secure.clock.advance(25 * 3600)
			await client.auth.refreshSession()
			const without = await client.auth.updateUser({ password: 'second password 2' })
			expect(without.error).toMatchObject({ status: 400, code: 'reauthentication_needed' })
			const early = await client.auth.updateUser({ password: 'second password 2', nonce: '123456' })
			expect(early.error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' })

			const asked = await client.auth.reauthenticate()
			expect(asked.error).toBeNull()
			const mail = await secure.lastMail(email)
			expect(mail.subject).toBe('Confirm it is you on Leadsmith')
			const wrong = String((Number(mail.code) + 1) % 1_000_000).padStart(6, '0')
			const bad = await client.auth.updateUser({ password: 'second password 2', nonce: wrong })
			expect(bad.error).toMatchObject({ status: 403, code: 'otp_expired' })
			const good = await client.auth.updateUser({
				password: 'second password 2',
				nonce: mail.code!,
			})
			expect(good.error).toBeNull()
			const signIn = await secure
				.client()
				.auth.signInWithPassword({ email, password: 'second password 2' })
			expect(signIn.error).toBeNull()
			// a nonce counts once
			const again = await client.auth.updateUser({
				password: 'third password 3',
				nonce: mail.code!,
			})
			expect(again.error).toMatchObject({ code: 'reauthentication_not_valid' })
		} finally {
			await secure.close()
		}
	})
})

describe('other origins (AUTH_ALLOWED_ORIGINS)', () => {
	test('browsers on an allowed origin may call /auth/v1 (CORS); others get no CORS headers', async () => {
		const preflight = (origin: string) =>
			fetch(`${server.url}/auth/v1/token?grant_type=password`, {
				method: 'OPTIONS',
				headers: {
					Origin: origin,
					'Access-Control-Request-Method': 'POST',
					'Access-Control-Request-Headers': 'apikey, authorization, content-type, x-client-info',
				},
			})
		const allowed = await preflight(ALLOWED_ORIGIN)
		expect(allowed.status).toBe(204)
		expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN)
		expect(allowed.headers.get('access-control-allow-credentials')).toBe('true')
		expect(allowed.headers.get('access-control-allow-methods')).toContain('POST')
		expect(allowed.headers.get('access-control-allow-headers')).toContain('apikey')
		const foreign = await preflight('https://evil.example')
		expect(foreign.headers.get('access-control-allow-origin')).toBeNull()

		// the official client from that origin: answers carry the CORS headers
		const seen: Headers[] = []
		const { email } = await signedUp()
		const client = createClient(server.url, server.service.anonKey, {
			auth: { persistSession: false, autoRefreshToken: false },
			global: {
				headers: { Origin: ALLOWED_ORIGIN },
				fetch: async (input, init) => {
					const response = await fetch(input, init)
					seen.push(response.headers)
					return response
				},
			},
		})
		const { error } = await client.auth.signInWithPassword({ email, password: PASSWORD })
		expect(error).toBeNull()
		expect(seen.at(-1)!.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN)
		expect(seen.at(-1)!.get('access-control-expose-headers')).toContain('X-Supabase-Api-Version')
		const plain = await fetch(`${server.url}/auth/v1/health`, {
			headers: { Origin: 'https://evil.example' },
		})
		expect(plain.headers.get('access-control-allow-origin')).toBeNull()
	})

	test('emailed links may send people to an allowed origin, never elsewhere', async () => {
		const { email } = await signedUp()
		await server.client().auth.resetPasswordForEmail(email, {
			redirectTo: `${ALLOWED_ORIGIN}/welcome`,
		})
		const opened = await openLink((await server.lastMail(email)).link!)
		expect(opened.url.origin + opened.url.pathname).toBe(`${ALLOWED_ORIGIN}/welcome`)
		server.clock.advance(61)
		await server.client().auth.resetPasswordForEmail(email, {
			redirectTo: 'https://evil.example/welcome',
		})
		const other = await openLink((await server.lastMail(email)).link!)
		expect(other.url.origin).toBe(server.url)
	})

	test('none by default', () => {
		const SECRET = 'x'.repeat(32)
		expect(parseEnv({ APP_SECRET: SECRET }).AUTH_ALLOWED_ORIGINS).toEqual([])
		expect(() =>
			parseEnv({ APP_SECRET: SECRET, AUTH_ALLOWED_ORIGINS: 'https://app.example.com/path' }),
		).toThrow(/AUTH_ALLOWED_ORIGINS/)
	})
})

describe('limits', () => {
	test('an oversize body is 413', async () => {
		const small = await startTestAuthServer({ BODY_LIMIT_BYTES: '2048' })
		try {
			const { error } = await small.client().auth.signUp({
				email: newEmail(),
				password: PASSWORD,
				options: { data: { blob: 'x'.repeat(5000) } },
			})
			expect(error).toMatchObject({ status: 413, code: 'request_entity_too_large' })
			expect(
				(await small.client().auth.signUp({ email: newEmail(), password: PASSWORD })).error,
			).toBeNull()
		} finally {
			await small.close()
		}
	})
})
