import { data, type MiddlewareFunction, type RouterContextProvider } from 'react-router'
import { isDatabaseConnectionError } from '../../db/errors.ts'
import { UNAVAILABLE_MESSAGE } from '../components/unavailable-screen.tsx'
import { databaseOutageContext } from '../utils/load-context.server.ts'

/** Seconds a client is told to wait before trying again (the Retry-After header). */
export const RETRY_AFTER_SECONDS = 5

/**
 * entry.server's handleError: an error that reached React Router because the database could
 * not be reached is noted on the request, for the middleware below.
 */
export function noteDatabaseOutage(
	error: unknown,
	context: Readonly<RouterContextProvider> | undefined,
) {
	const outage = outageOf(context)
	if (outage && isDatabaseConnectionError(error)) outage.unavailable = true
}

function outageOf(context: Readonly<RouterContextProvider> | undefined) {
	try {
		return context?.get(databaseOutageContext)
	} catch {
		return undefined // a context made without the key (tests)
	}
}

/**
 * Runs first: a page that failed because the database is down or out of connections is a
 * 503 "temporarily unavailable" screen (with Retry-After), not the 404 screen with a 500.
 */
export const databaseUnavailableMiddleware: MiddlewareFunction<Response> = async (
	{ context },
	next,
) => {
	const response = await next()
	if (response.status >= 500 && outageOf(context)?.unavailable)
		throw data(UNAVAILABLE_MESSAGE, { status: 503 })
	return response
}
