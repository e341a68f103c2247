// Access tokens the auth client has verified, remembered for a few minutes: a signed-in page
// then costs no Supabase client, no cookie decoding and no signature check per request. The
// session row, ban and deletion are still checked on every request (the request context
// statement), so signing out still acts at once. Only what the auth client verified itself,
// for that very token, is remembered; a token near its expiry goes through the client again,
// which refreshes it as before.

export type AccessClaims = {
	sub: string
	email?: unknown
	session_id?: unknown
	exp?: number
	iat?: number
}

/** The auth client refreshes a token this close to its expiry (auth-js EXPIRY_MARGIN_MS). */
const REFRESH_MARGIN_MS = 90_000
/** As long as the auth client caches the signing keys (auth-js JWKS_TTL). */
const REMEMBER_MS = 10 * 60_000
/** Bounded memory: about 2 kB an entry. */
export const MAX_REMEMBERED = 2_000

const remembered = new Map<string, { claims: AccessClaims; until: number }>()

/** @supabase/ssr's session cookie and its chunks: sb-<ref>-auth-token, sb-<ref>-auth-token.0 */
const SESSION_COOKIE = /^(sb-.+-auth-token)(?:\.(\d+))?$/

/**
 * The access token in this request's session cookie (as @supabase/ssr stores it: JSON,
 * optionally `base64-` encoded, optionally split into chunks), or null.
 */
export function sessionAccessToken(cookies: ReadonlyMap<string, string>): string | null {
	let base: string | null = null
	for (const name of cookies.keys()) {
		const match = SESSION_COOKIE.exec(name)
		if (!match) continue
		if (base !== null && base !== match[1]) return null // two sessions: let the client decide
		base = match[1]!
	}
	if (base === null) return null
	let value = cookies.get(base)
	if (value === undefined) {
		value = ''
		for (let i = 0; cookies.has(`${base}.${i}`); i++) value += cookies.get(`${base}.${i}`)
	}
	let token = tokenOfCookie.get(value)
	if (token === undefined) {
		token = accessTokenOf(value)
		if (tokenOfCookie.size >= MAX_REMEMBERED)
			tokenOfCookie.delete(tokenOfCookie.keys().next().value!)
		tokenOfCookie.set(value, token)
	}
	return token
}

// A browser sends the same session cookie until the token is refreshed: decoding it (base64
// and JSON of a few kB) once, not on every request.
const tokenOfCookie = new Map<string, string | null>()

function accessTokenOf(value: string): string | null {
	try {
		const json = value.startsWith('base64-')
			? Buffer.from(value.slice('base64-'.length), 'base64url').toString('utf8')
			: value
		const token = (JSON.parse(json) as { access_token?: unknown }).access_token
		return typeof token === 'string' && token ? token : null
	} catch {
		return null
	}
}

/** Whether the request carries a session cookie at all (without one, nobody is signed in). */
export function hasSessionCookie(cookies: ReadonlyMap<string, string>) {
	for (const name of cookies.keys()) if (SESSION_COOKIE.test(name)) return true
	return false
}

/** The claims verified earlier for exactly this token, while it is not due for a refresh. */
export function rememberedClaims(token: string, now = Date.now()): AccessClaims | null {
	const entry = remembered.get(token)
	if (!entry) return null
	if (entry.until > now) return entry.claims
	remembered.delete(token)
	return null
}

/**
 * Remembers `claims`, which the auth client verified, for `token`, the token of the request's
 * cookie: only when they are that token's own claims (not a refreshed token's).
 */
export function rememberClaims(token: string, claims: AccessClaims, now = Date.now()) {
	const payload = payloadOf(token)
	if (
		!payload ||
		payload.sub !== claims.sub ||
		payload.iat !== claims.iat ||
		typeof claims.exp !== 'number' ||
		payload.exp !== claims.exp
	)
		return
	const until = Math.min(claims.exp * 1000 - REFRESH_MARGIN_MS, now + REMEMBER_MS)
	if (until <= now) return
	if (remembered.size >= MAX_REMEMBERED) {
		// the oldest first (a Map keeps insertion order)
		remembered.delete(remembered.keys().next().value!)
	}
	remembered.set(token, { claims, until })
}

export function forgetRememberedClaims() {
	remembered.clear()
	tokenOfCookie.clear()
}

export function rememberedCount() {
	return remembered.size
}

export function decodedCookieCount() {
	return tokenOfCookie.size
}

function payloadOf(token: string): AccessClaims | null {
	try {
		return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'))
	} catch {
		return null
	}
}
