import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import type { SupabaseClient } from '@supabase/supabase-js'
import { getConfig } from '../../config.server.ts'
import { CLIENT_IP_HEADER } from '../../auth-service/service.server.ts'
import { getAuthEndpoint, type AuthEndpoint } from './endpoint.server.ts'
import type { AccessClaims } from './verified-tokens.server.ts'

export type Supabase = SupabaseClient

/**
 * A Supabase server client over this request's cookies. Whatever it sets
 * (sign-in, refresh, sign-out) is appended to `responseHeaders`, which the
 * session middleware copies onto the response.
 */
export async function createSupabase(
	request: Request,
	responseHeaders: Headers,
): Promise<Supabase> {
	return supabaseFor(await getAuthEndpoint(), request, responseHeaders, requestCookies(request))
}

/** The request's cookies by name (parsed once per request). */
export function requestCookies(request: Request): Map<string, string> {
	return new Map(
		parseCookieHeader(request.headers.get('Cookie') ?? '').map(
			(c) => [c.name, c.value ?? ''] as const,
		),
	)
}

/** createSupabase with the endpoint and cookies at hand (the session middleware makes it lazily). */
export function supabaseFor(
	endpoint: AuthEndpoint,
	request: Request,
	responseHeaders: Headers,
	cookies: Map<string, string>,
): Supabase {
	const secure = getConfig().APP_URL.startsWith('https:')
	// The auth service rate-limits per client IP; in-process calls carry it along.
	const clientIp = request.headers.get(CLIENT_IP_HEADER)
	const jar = new Map(cookies)
	return createServerClient(endpoint.url, endpoint.anonKey, {
		global: { fetch: endpoint.fetch, headers: clientIp ? { [CLIENT_IP_HEADER]: clientIp } : {} },
		cookieOptions: { secure, sameSite: 'lax', path: '/', httpOnly: true },
		cookies: {
			getAll() {
				return [...jar].map(([name, value]) => ({ name, value }))
			},
			setAll(cookies, headers) {
				for (const { name, value, options } of cookies) {
					// Later calls in this request (sign-out after sign-in) must see earlier ones.
					if (!value || options?.maxAge === 0) jar.delete(name)
					else jar.set(name, value)
					responseHeaders.append('Set-Cookie', serializeCookieHeader(name, value, options))
				}
				for (const [key, value] of Object.entries(headers ?? {})) responseHeaders.set(key, value)
			},
		},
	})
}

export type SessionUser = {
	id: string
	email: string
	/** the token's session_id claim: the auth.sessions row it belongs to */
	sessionId: string | null
	/** the token's aal claim: aal2 once a second factor was verified in the session */
	aal: 'aal1' | 'aal2'
}

/**
 * The signed-in user, from the access token verified locally against the
 * auth service's JWKS (no round trip, no database). A tampered, expired or
 * foreign-signed cookie counts as signed out. Whether its session is still live is
 * checked with the request context (loadSessionContext), in the same round trip.
 */
export async function getSessionUser(supabase: Supabase): Promise<SessionUser | null> {
	const claims = await getSessionClaims(supabase)
	return claims ? sessionUserOf(claims) : null
}

/** The verified claims of the session's access token (refreshed first when due), or null. */
export async function getSessionClaims(supabase: Supabase): Promise<AccessClaims | null> {
	try {
		const { data, error } = await supabase.auth.getClaims()
		if (error || !data?.claims?.sub) return null
		return data.claims as AccessClaims
	} catch {
		return null
	}
}

/** Who a verified access token's claims name, and in which session. */
export function sessionUserOf(claims: {
	sub: string
	email?: unknown
	session_id?: unknown
	aal?: unknown
}): SessionUser {
	const sessionId = claims.session_id
	return {
		id: claims.sub,
		email: String(claims.email ?? ''),
		sessionId: typeof sessionId === 'string' && sessionId ? sessionId : null,
		aal: claims.aal === 'aal2' ? 'aal2' : 'aal1',
	}
}

/** @supabase/ssr's session cookie and its chunks: sb-<ref>-auth-token, sb-<ref>-auth-token.0 */
const SESSION_COOKIE = /^sb-.+-auth-token(\.\d+)?$/

/**
 * Clears the session cookies of a token whose session has ended (signed out elsewhere,
 * revoked, banned, deleted): the browser drops the dead token and the visitor is signed out,
 * without a call to the auth service.
 */
export function clearSessionCookies(request: Request, responseHeaders: Headers) {
	const secure = getConfig().APP_URL.startsWith('https:')
	for (const { name } of parseCookieHeader(request.headers.get('Cookie') ?? '')) {
		if (!SESSION_COOKIE.test(name)) continue
		responseHeaders.append(
			'Set-Cookie',
			serializeCookieHeader(name, '', {
				path: '/',
				maxAge: 0,
				sameSite: 'lax',
				httpOnly: true,
				secure,
			}),
		)
	}
}
