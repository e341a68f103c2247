// Which database errors go away by themselves: the server restarting or unreachable, a
// connection lost or not to be had in time, a transaction picked as a deadlock or
// serialization victim. Web requests answer 503 for the connection ones; jobs retry them all.

const NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ETIMEDOUT',
	'EPIPE',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EAI_AGAIN',
	'ENOTFOUND',
])

const CONNECTION_SQLSTATES = new Set([
	'57P01', // admin_shutdown
	'57P02', // crash_shutdown
	'57P03', // cannot_connect_now (starting up, shutting down, recovering)
	'53300', // too_many_connections
])

const RETRYABLE_SQLSTATES = new Set([
	'40001', // serialization_failure
	'40P01', // deadlock_detected
])

// node-postgres and pg-pool say these in words only.
const CONNECTION_MESSAGES = [
	'Connection terminated',
	'timeout exceeded when trying to connect',
	'is not queryable',
	'Client was closed',
	'Cannot use a pool after calling end',
	'the database system is',
	'terminating connection',
]

/** The error and what it wraps (cause, AggregateError's errors), each once. */
function* chain(error: unknown, seen = new Set<unknown>()): Generator<Record<string, unknown>> {
	if (!error || typeof error !== 'object' || seen.has(error)) return
	seen.add(error)
	const record = error as Record<string, unknown>
	yield record
	if (Array.isArray(record.errors)) for (const inner of record.errors) yield* chain(inner, seen)
	yield* chain(record.cause, seen)
}

/** The database could not be reached or dropped the connection: it will be back. */
export function isDatabaseConnectionError(error: unknown): boolean {
	for (const e of chain(error)) {
		const code = typeof e.code === 'string' ? e.code : ''
		if (NETWORK_CODES.has(code) || CONNECTION_SQLSTATES.has(code) || code.startsWith('08'))
			return true
		// a Unix socket whose server is gone (no socket file): not any missing file
		if (code === 'ENOENT' && e.syscall === 'connect') return true
		const message = typeof e.message === 'string' ? e.message : ''
		if (!('severity' in e) && CONNECTION_MESSAGES.some((m) => message.includes(m))) return true
	}
	return false
}

/** Worth another attempt later: a connection error, or a deadlock/serialization victim. */
export function isTransientDatabaseError(error: unknown): boolean {
	if (isDatabaseConnectionError(error)) return true
	for (const e of chain(error)) if (RETRYABLE_SQLSTATES.has(String(e.code))) return true
	return false
}
