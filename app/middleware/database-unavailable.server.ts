import { data, type MiddlewareFunction, type RouterContextProvider } from 'react-router'
import { isDatabaseConnectionError } from '../../db/errors.ts'
import { UNAVAILABLE_MESSAGE } from '../components/unavailable-screen.tsx'
import { resourceRoutes } from '../routes.ts'
import { databaseOutageContext } from '../utils/load-context.server.ts'

/** Seconds a client is told to wait before trying again (the Retry-After header). */
export const RETRY_AFTER_SECONDS = 5

/**
 * A service the request needs answered with a server error or not at all (the auth service,
 * whose sessions live in the database): the page is unavailable for a moment, not broken.
 */
export class ServiceUnavailableError extends Error {
	override name = 'ServiceUnavailableError'
}

/** Whether `error` means "try again in a moment": the database or the auth service is away. */
export function isUnavailable(error: unknown) {
	return error instanceof ServiceUnavailableError || isDatabaseConnectionError(error)
}

/**
 * entry.server's handleError: an error that reached React Router because the database could
 * not be reached is noted on the request, for the middleware below.
 */
export function noteDatabaseOutage(
	error: unknown,
	context: Readonly<RouterContextProvider> | undefined,
) {
	const outage = outageOf(context)
	if (outage && isUnavailable(error)) outage.unavailable = true
}

function outageOf(context: Readonly<RouterContextProvider> | undefined) {
	try {
		return context?.get(databaseOutageContext)
	} catch {
		return undefined // a context made without the key (tests)
	}
}

// a route's pattern is its path, without a leading slash (React Router's getRoutePattern)
const resourcePatterns = new Set<string>(resourceRoutes.map((r) => r.path))

/**
 * The 503: a screen's is the "temporarily unavailable" screen (its Retry-After is set by
 * entry.server); a resource route's (a download, a form endpoint) is plain text with
 * Retry-After, as React Router answers an error there with a bare 500.
 */
function unavailable(pattern: string) {
	if (!resourcePatterns.has(pattern.replace(/^\//, '')))
		return data(UNAVAILABLE_MESSAGE, { status: 503 })
	return new Response(`${UNAVAILABLE_MESSAGE}\n`, {
		status: 503,
		headers: {
			'Content-Type': 'text/plain; charset=utf-8',
			'Cache-Control': 'no-store',
			'Retry-After': String(RETRY_AFTER_SECONDS),
		},
	})
}

/**
 * Runs first: a request that failed because the database is down or out of connections
 * (wherever it surfaced: a checkout, a statement, the request context, a token refresh, a
 * commit) is a 503 "temporarily unavailable", not the 404 screen with a 500.
 */
export const databaseUnavailableMiddleware: MiddlewareFunction<Response> = async (
	{ context, pattern },
	next,
) => {
	let response: Response
	try {
		response = await next()
	} catch (error) {
		// thrown past the route's error handling: a later middleware's, or a resource route's
		if (isUnavailable(error)) throw unavailable(pattern)
		throw error
	}
	if (response.status >= 500 && outageOf(context)?.unavailable) throw unavailable(pattern)
	return response
}
