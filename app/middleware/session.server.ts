import type { MiddlewareFunction } from 'react-router'
import { db } from '../../db/index.server.ts'
import { ServiceUnavailableError } from './database-unavailable.server.ts'
import { getConfig } from '../config.server.ts'
import {
	loadSessionContext,
	loadSessionContextWith,
	requestContext,
	type AccountContext,
	type RequestContext,
} from '../context.server.ts'
import { routeHandleContext } from '../utils/load-context.server.ts'
import { getAuthEndpoint, type AuthEndpoint } from '../services/auth/endpoint.server.ts'
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
import {
	chosenWorkspaceId,
	currentWorkspaceOf,
	resolveCurrentWorkspaceId,
} from '../services/workspaces/current-workspace.server.ts'

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
	const declared = context.get(routeHandleContext)
	// The probes answer for the process, whoever asks: no session to read (decision 0060).
	if (declared.session === 'none') return next()
	const responseHeaders = new Headers()
	const endpoint = await getAuthEndpoint()
	const cookies = requestCookies(request)
	let client: Supabase | undefined
	// made with the client: a request that needs no auth client pays nothing for it
	let watched: ReturnType<typeof watchedForOutage> | undefined
	const supabase = () =>
		(client ??= supabaseFor(
			(watched = watchedForOutage(endpoint)),
			request,
			responseHeaders,
			cookies,
		))
	const token = sessionAccessToken(cookies)
	// A signed-in answer is the user's alone: no browser history or shared cache keeps it (as
	// downloads already said), whatever the route set.
	if (hasSessionCookie(cookies)) responseHeaders.set('Cache-Control', 'private, no-store')
	let claims = token ? rememberedClaims(token) : null
	// No session cookie (a visitor, the sign-in page): nobody to verify, no auth client to make.
	if (!claims && hasSessionCookie(cookies)) {
		const claimsOf = getSessionClaims(supabase())
		claims = await Promise.race([claimsOf, watched!.unavailable])
		if (claims && token) rememberClaims(token, claims)
	}
	const user = claims ? sessionUserOf(claims) : null
	const checkSession = getConfig().AUTH_SESSION_CHECK === 'database'
	// A page its loader says is read with the context (the dashboard, every user's first page) is
	// read in the context's statement, when this request runs that loader (decisions 0054, 0075).
	const withContext = declared.contextRead
	const read =
		user && withContext && runsLoaderOf(withContext.routeId, request) ? withContext.read : null
	let loaded: AccountContext | null = null
	let alongside: RequestContext['alongside'] = null
	let chosen: string | null | undefined
	if (user && read) {
		chosen = await chosenWorkspaceId(request, user.id)
		const both = await loadSessionContextWith(db, user, {
			checkSession,
			chosenWorkspaceId: chosen,
			read,
		})
		loaded = both.account
		alongside = both.value === null ? null : { read, value: both.value }
	} else if (user) {
		loaded = await loadSessionContext(db, user, { checkSession })
	}
	if (user && !loaded) clearSessionCookies(request, responseHeaders)
	// With a verified factor, a password-only (aal1) session is not signed in yet: every screen
	// treats it as signed out, and /signin/verify asks for the code.
	const secondFactorPending = Boolean(loaded?.twoFactorEnabled && loaded.sessionAal !== 'aal2')
	const account = secondFactorPending ? null : loaded
	const currentWorkspaceId = !account
		? null
		: chosen === undefined
			? await resolveCurrentWorkspaceId(request, account)
			: currentWorkspaceOf(account, chosen)
	context.set(requestContext, {
		alongside: account ? alongside : null,
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

/**
 * The auth endpoint for one request, watched: a server error or no answer from the auth
 * service (its sessions live in the database) rejects `unavailable` at once. The auth client
 * retries a failed token refresh for up to 30 s and then counts the visitor as signed out;
 * racing it against `unavailable` makes that a 503 now, and the session stays as it is. Its
 * later retries are answered here without reaching the service.
 */
function watchedForOutage(endpoint: AuthEndpoint) {
	let failed = false
	let reject: (error: Error) => void = () => {}
	const unavailable = new Promise<never>((_, no) => (reject = no))
	unavailable.catch(() => {}) // only the race awaits it
	const fail = (detail: string) => {
		failed = true
		reject(new ServiceUnavailableError(`the auth service is unavailable (${detail})`))
		return new Response(JSON.stringify({ message: 'unavailable' }), {
			status: 503,
			headers: { 'Content-Type': 'application/json' },
		})
	}
	const watched: typeof fetch = async (input, init) => {
		if (failed) return fail('answered before')
		try {
			const response = await endpoint.fetch(input, init)
			return response.status >= 500 ? fail(`status ${response.status}`) : response
		} catch (error) {
			return fail(error instanceof Error ? error.message : String(error))
		}
	}
	return { ...endpoint, fetch: watched, unavailable }
}

/**
 * A GET of the matched route that runs its loader: a document request, or a data request whose
 * routes (`_routes`, when the client names them) include it.
 */
function runsLoaderOf(routeId: string, request: Request) {
	if (request.method !== 'GET') return false
	if (!request.url.includes('_routes=')) return true
	const routes = new URL(request.url).searchParams.get('_routes') ?? ''
	return routes.split(',').includes(routeId)
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
