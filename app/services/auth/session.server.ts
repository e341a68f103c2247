import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import type { SupabaseClient } from '@supabase/supabase-js'
import { getConfig } from '../../config.server.ts'
import { CLIENT_IP_HEADER } from '../../auth-service/service.server.ts'
import { getAuthEndpoint } from './endpoint.server.ts'

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
	const endpoint = await getAuthEndpoint()
	const secure = getConfig().APP_URL.startsWith('https:')
	// The auth service rate-limits per client IP; in-process calls carry it along.
	const clientIp = request.headers.get(CLIENT_IP_HEADER)
	const jar = new Map(
		parseCookieHeader(request.headers.get('Cookie') ?? '').map(
			(c) => [c.name, c.value ?? ''] as const,
		),
	)
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

export type SessionUser = { id: string; email: string }

/**
 * The signed-in user, from the access token verified locally against the
 * auth service's JWKS (no round trip, no database). A tampered, expired or
 * foreign-signed cookie counts as signed out.
 */
export async function getSessionUser(supabase: Supabase): Promise<SessionUser | null> {
	try {
		const { data, error } = await supabase.auth.getClaims()
		if (error || !data?.claims?.sub) return null
		return { id: data.claims.sub, email: String(data.claims.email ?? '') }
	} catch {
		return null
	}
}
