import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import type { SupabaseClient } from '@supabase/supabase-js'
import { getConfig } from '../../config.server.ts'
import { getAuthEndpoint } from './endpoint.server.ts'

export type Supabase = SupabaseClient

/**
 * A Supabase server client over this request's cookies. Whatever it sets
 * (sign-in, refresh, sign-out) is appended to `responseHeaders`, which the
 * session middleware copies onto the response.
 */
export async function createSupabase(request: Request, responseHeaders: Headers): Promise<Supabase> {
	const endpoint = await getAuthEndpoint()
	const secure = getConfig().APP_URL.startsWith('https:')
	return createServerClient(endpoint.url, endpoint.anonKey, {
		global: { fetch: endpoint.fetch },
		cookieOptions: { secure, sameSite: 'lax', path: '/', httpOnly: true },
		cookies: {
			getAll() {
				return parseCookieHeader(request.headers.get('Cookie') ?? '').map((c) => ({
					name: c.name,
					value: c.value ?? '',
				}))
			},
			setAll(cookies, headers) {
				for (const { name, value, options } of cookies) {
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
