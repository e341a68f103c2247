// @supabase/ssr against the service, as the app's loaders and actions use it: a server client per
// request, reading and writing the session in cookies.
import { randomUUID } from 'node:crypto'
import { createServerClient } from '@supabase/ssr'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openLink, startTestAuthServer, type TestAuthServer } from './testing.server.ts'

const PASSWORD = 'correct horse 42'
let server: TestAuthServer

beforeAll(async () => {
	// short-lived access tokens, so the server client has to refresh them
	server = await startTestAuthServer(
		{ AUTH_RATE_LIMIT_IP: '100000' },
		{ accessTokenLifetimeSeconds: 60 },
	)
})
afterAll(async () => {
	await server?.close()
})

/** A browser's cookie jar, and a server client for one request made with it. */
function browser() {
	const jar = new Map<string, string>()
	return {
		jar,
		request() {
			return createServerClient(server.url, server.service.anonKey, {
				cookies: {
					getAll: () => [...jar].map(([name, value]) => ({ name, value })),
					setAll: (cookies) => {
						for (const { name, value, options } of cookies) {
							if (!value || options.maxAge === 0) jar.delete(name)
							else jar.set(name, value)
						}
					},
				},
			})
		},
	}
}

const newEmail = () => `ssr-${randomUUID().slice(0, 8)}@example.com`

test('sign-in writes the session cookie; later requests read, verify and refresh it', async () => {
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	const b = browser()
	const signIn = await b.request().auth.signInWithPassword({ email, password: PASSWORD })
	expect(signIn.error).toBeNull()
	expect([...b.jar.keys()]).toEqual(['sb-127-auth-token'])
	expect(b.jar.get('sb-127-auth-token')).toMatch(/^base64-/)

	// the next request: claims verified locally through the JWKS
	const first = await b.request().auth.getClaims()
	expect(first.error).toBeNull()
	expect(first.data!.claims).toMatchObject({ email, role: 'authenticated' })
	const refreshToken = signIn.data.session!.refresh_token

	// 60 s tokens are within the client's refresh margin: the session is refreshed and rewritten
	const second = await b.request().auth.getUser()
	expect(second.error).toBeNull()
	expect(second.data.user!.email).toBe(email)
	const stored = JSON.parse(
		Buffer.from(b.jar.get('sb-127-auth-token')!.slice(7), 'base64url').toString(),
	)
	expect(stored.refresh_token).not.toBe(refreshToken)

	// sign-out clears the cookie and the session
	expect((await b.request().auth.signOut()).error).toBeNull()
	expect(b.jar.size).toBe(0)
	expect((await server.client().auth.getUser(stored.access_token)).error).toMatchObject({
		name: 'AuthSessionMissingError',
	})
})

test('PKCE with the verifier in a cookie: the magic link code is exchanged on the next request', async () => {
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	const b = browser()
	const sent = await b
		.request()
		.auth.signInWithOtp({ email, options: { emailRedirectTo: `${server.url}/auth/confirm` } })
	expect(sent.error).toBeNull()
	expect([...b.jar.keys()].some((name) => name.includes('code-verifier'))).toBe(true)
	const opened = await openLink((await server.lastMail(email)).link!)
	const code = opened.query.get('code')!
	const exchanged = await b.request().auth.exchangeCodeForSession(code)
	expect(exchanged.error).toBeNull()
	expect(exchanged.data.user!.email).toBe(email)
	expect(b.jar.has('sb-127-auth-token')).toBe(true)
	expect((await b.request().auth.getUser()).data.user!.email).toBe(email)
})

test('password recovery with token_hash and verifyOtp (works in any browser)', async () => {
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	const { data } = await server.admin().auth.admin.generateLink({ type: 'recovery', email })
	const b = browser()
	const verified = await b
		.request()
		.auth.verifyOtp({ token_hash: data.properties!.hashed_token, type: 'recovery' })
	expect(verified.error).toBeNull()
	expect((await b.request().auth.updateUser({ password: 'recovered pass 1' })).error).toBeNull()
	expect(
		(await server.client().auth.signInWithPassword({ email, password: 'recovered pass 1' })).error,
	).toBeNull()
})
