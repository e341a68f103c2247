import pino from 'pino'
import { singleton } from './singleton.server.ts'

export const logger = singleton('logger', () =>
	pino({ level: process.env.LOG_LEVEL ?? (appMode() === 'test' ? 'silent' : 'info') }),
)

/** The app's mode: an entry point keeps it in APP_MODE, as NODE_ENV then names the libraries' builds. */
function appMode() {
	return process.env.APP_MODE ?? process.env.NODE_ENV
}

/** The HTTP status an error stands for, when it says one (a thrown response, an http error). */
function clientStatusOf(error: unknown) {
	if (error instanceof Response) return error.status
	if (typeof error !== 'object' || error === null) return undefined
	const { status, statusCode } = error as { status?: unknown; statusCode?: unknown }
	const value = typeof status === 'number' ? status : statusCode
	return typeof value === 'number' ? value : undefined
}

/**
 * Logs a request that failed. A client's mistake (a 4xx: a body over the limit, a method the
 * route does not take, a malformed escape) is a warning with its status and reason, without a
 * stack: anyone can cause it, and error-level entries are for what the server must fix.
 */
export function logRequestFailure(error: unknown, url: string, message: string) {
	const status = clientStatusOf(error)
	if (status !== undefined && status >= 400 && status < 500) {
		const reason =
			error instanceof Error
				? error.message
				: String((error as { statusText?: unknown }).statusText ?? status)
		logger.warn({ status, url, reason }, message)
		return
	}
	logger.error({ err: error, url }, message)
}
