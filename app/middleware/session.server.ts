import type { MiddlewareFunction } from 'react-router'
import { db } from '../../db/index.server.ts'
import { getConfig } from '../config.server.ts'
import { loadSessionContext, requestContext } from '../context.server.ts'
import { getAuthEndpoint } from '../services/auth/endpoint.server.ts'
import {
	clearSessionCookies,
	getSessionClaims,
	requestCookies,
	sessionUserOf,
	supabaseFor,
	type Supabase,
} from '../services/auth/session.server.ts'
import {
	hasSessionCookie,
	rememberClaims,
	rememberedClaims,
	sessionAccessToken,
} from '../services/auth/verified-tokens.server.ts'
import { resolveCurrentWorkspaceId } from '../services/workspaces/current-workspace.server.ts'

/**
 * Runs first on every request: verifies the session cookie, loads the account
 * context in one query (which also checks that the token's session is still live),
 * and puts the cookies the auth client set (refreshes, sign-ins, sign-outs) on
 * whatever response comes back. A token whose session has ended counts as signed
 * out, and its cookies are cleared. A token the auth client verified a moment ago is not
 * verified again (verified-tokens.server.ts), and the auth client is only made when the
 * request needs it.
 */
export const sessionMiddleware: MiddlewareFunction<Response> = async (
	{ request, context },
	next,
) => {
	const responseHeaders = new Headers()
	const endpoint = await getAuthEndpoint()
	const cookies = requestCookies(request)
	let client: Supabase | undefined
	const supabase = () => (client ??= supabaseFor(endpoint, request, responseHeaders, cookies))
	const token = sessionAccessToken(cookies)
	let claims = token ? rememberedClaims(token) : null
	// No session cookie (a visitor, the sign-in page): nobody to verify, no auth client to make.
	if (!claims && hasSessionCookie(cookies)) {
		claims = await getSessionClaims(supabase())
		if (claims && token) rememberClaims(token, claims)
	}
	const user = claims ? sessionUserOf(claims) : null
	const loaded = user
		? await loadSessionContext(db, user, {
				checkSession: getConfig().AUTH_SESSION_CHECK === 'database',
			})
		: null
	if (user && !loaded) clearSessionCookies(request, responseHeaders)
	// With a verified factor, a password-only (aal1) session is not signed in yet: every screen
	// treats it as signed out, and /signin/verify asks for the code.
	const secondFactorPending = Boolean(loaded?.twoFactorEnabled && loaded.sessionAal !== 'aal2')
	const account = secondFactorPending ? null : loaded
	const currentWorkspaceId = account ? await resolveCurrentWorkspaceId(request, account) : null
	context.set(requestContext, {
		get supabase() {
			return supabase()
		},
		responseHeaders,
		account,
		currentWorkspaceId,
		secondFactorPending,
	})
	const response = await next()
	return withHeaders(response, responseHeaders)
}

function withHeaders(response: Response, extra: Headers) {
	const cookies = extra.getSetCookie()
	if (cookies.length === 0 && [...extra.keys()].length === 0) return response
	let target = response
	try {
		for (const cookie of cookies) target.headers.append('Set-Cookie', cookie)
	} catch {
		// immutable headers (e.g. Response.redirect): copy into a new response
		target = new Response(response.body, response)
		for (const cookie of cookies) target.headers.append('Set-Cookie', cookie)
	}
	for (const [key, value] of extra) {
		if (key !== 'set-cookie') target.headers.set(key, value)
	}
	return target
}
