import { createChunks, stringToBase64URL } from '@supabase/ssr'
import { beforeEach, describe, expect, test } from 'vitest'
import {
	decodedCookieCount,
	forgetRememberedClaims,
	hasSessionCookie,
	MAX_REMEMBERED,
	rememberClaims,
	rememberedClaims,
	rememberedCount,
	sessionAccessToken,
} from './verified-tokens.server.ts'

const now = Date.UTC(2026, 10, 24, 3, 0, 0)
const seconds = Math.floor(now / 1000)

/** An access token's shape (the signature is the auth client's business, not checked here). */
function token(claims: Record<string, unknown>) {
	const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
	return `${part({ alg: 'ES256', kid: 'k1' })}.${part(claims)}.c2lnbmF0dXJl`
}

const claims = (extra: Record<string, unknown> = {}) => ({
	sub: 'user-1',
	email: 'a@example.com',
	session_id: 'session-1',
	iat: seconds - 60,
	exp: seconds + 3600,
	...extra,
})

/** The cookies @supabase/ssr writes for a session: `base64-` JSON, split past 3180 characters. */
function sessionCookies(accessToken: string, padding = 0) {
	const value = `base64-${stringToBase64URL(
		JSON.stringify({
			access_token: accessToken,
			refresh_token: 'r',
			user: { pad: 'x'.repeat(padding) },
		}),
	)}`
	return new Map(
		createChunks('sb-127-auth-token', value).map(({ name, value }) => [name, value] as const),
	)
}

beforeEach(() => forgetRememberedClaims())

describe('the session cookie', () => {
	test('gives its access token, whole or in chunks', () => {
		const access = token(claims())
		expect(sessionAccessToken(sessionCookies(access))).toBe(access)
		const chunked = sessionCookies(access, 5000)
		expect([...chunked.keys()].slice(0, 2)).toEqual(['sb-127-auth-token.0', 'sb-127-auth-token.1'])
		expect(sessionAccessToken(chunked)).toBe(access)
	})

	test('gives the same token for a cookie seen before, and a refreshed cookie its new one', () => {
		const first = token(claims())
		const refreshed = token(claims({ iat: seconds + 60, exp: seconds + 3660 }))
		expect(sessionAccessToken(sessionCookies(first))).toBe(first)
		expect(sessionAccessToken(sessionCookies(refreshed))).toBe(refreshed)
		expect(sessionAccessToken(sessionCookies(first))).toBe(first)
		expect(sessionAccessToken(new Map([['sb-127-auth-token', 'base64-!!!']]))).toBeNull()
	})

	test('remembers at most MAX_REMEMBERED decoded cookies', () => {
		for (let i = 0; i < MAX_REMEMBERED + 20; i++) {
			sessionAccessToken(sessionCookies(token(claims({ session_id: `session-${i}` }))))
		}
		expect(decodedCookieCount()).toBe(MAX_REMEMBERED)
	})

	test('gives nothing when missing, unreadable or ambiguous', () => {
		expect(sessionAccessToken(new Map([['ls_toast', 'x']]))).toBeNull()
		expect(hasSessionCookie(new Map([['ls_toast', 'x']]))).toBe(false)
		expect(hasSessionCookie(new Map([['sb-127-auth-token.0', 'x']]))).toBe(true)
		expect(sessionAccessToken(new Map([['sb-127-auth-token', 'base64-!!!']]))).toBeNull()
		const two = new Map([...sessionCookies(token(claims())), ['sb-other-auth-token', 'x']])
		expect(sessionAccessToken(two)).toBeNull()
	})
})

describe('remembered claims', () => {
	test("are the verified token's own, until shortly before it is due for a refresh", () => {
		const access = token(claims({ exp: seconds + 300 }))
		rememberClaims(access, claims({ exp: seconds + 300 }), now)
		expect(rememberedClaims(access, now)?.session_id).toBe('session-1')
		// 90 s before expiry the auth client refreshes: the token goes through it again
		expect(rememberedClaims(access, now + 211_000)).toBeNull()
	})

	test("are kept for at most 10 minutes, and never for another token's claims", () => {
		const access = token(claims())
		rememberClaims(access, claims(), now)
		expect(rememberedClaims(access, now + 9 * 60_000)).not.toBeNull()
		expect(rememberedClaims(access, now + 11 * 60_000)).toBeNull()

		// the client refreshed the token: its claims are the new token's, not this one's
		const old = token(claims())
		rememberClaims(old, claims({ iat: seconds, exp: seconds + 3660 }), now)
		expect(rememberedClaims(old, now)).toBeNull()
		// a token close to expiry is not remembered at all
		const expiring = token(claims({ exp: seconds + 60 }))
		rememberClaims(expiring, claims({ exp: seconds + 60 }), now)
		expect(rememberedClaims(expiring, now)).toBeNull()
	})

	test('are bounded in number', () => {
		for (let i = 0; i < MAX_REMEMBERED + 50; i++) {
			const c = claims({ sub: `user-${i}` })
			rememberClaims(token(c), c, now)
		}
		expect(rememberedCount()).toBe(MAX_REMEMBERED)
		// the oldest went first
		expect(rememberedClaims(token(claims({ sub: 'user-0' })), now)).toBeNull()
		const last = claims({ sub: `user-${MAX_REMEMBERED + 49}` })
		expect(rememberedClaims(token(last), now)).not.toBeNull()
	})
})
