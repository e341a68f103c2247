// Start-up failures as sentences, and the HTTP half of a graceful shutdown (decision 0025).
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { StartupError } from '../../db/embedded.ts'
import { isDatabaseConnectionError } from '../../db/errors.ts'

/** One sentence naming the cause of a failed start and its fix. */
export function startupFailureSentence(error: unknown, appName: string): string {
	if (error instanceof StartupError) return error.message
	const e = (error ?? {}) as NodeJS.ErrnoException & { port?: number; address?: string }
	if (e.syscall === 'listen' && e.code === 'EADDRINUSE')
		return `Port ${e.port} is already in use by another program (another ${appName} still running?): stop that program or set PORT to a free port.`
	if (e.syscall === 'listen' && e.code === 'EACCES')
		return `Port ${e.port} needs privileges this user does not have: set PORT to 1024 or above.`
	if (e.syscall === 'listen' && e.code === 'EADDRNOTAVAIL')
		return `HOST ${e.address} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0.`
	if ((e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS') && e.path)
		return `${e.path} is not writable (${e.code}): make DATA_DIR writable for this user or set DATA_DIR to a writable folder.`
	const message = error instanceof Error ? error.message : String(error)
	return `${appName} could not start (${message || 'unknown error'}): fix the cause it names and start again.`
}

/** For entry points: print the sentence (the stack only at debug level) and exit 1. */
export function exitWithStartupFailure(appName: string) {
	return (error: unknown): never => {
		console.error(startupFailureSentence(error, appName))
		if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(error)
		process.exit(1)
	}
}

const unfinished = new WeakMap<Server, Set<ServerResponse>>()

/** server.ts, once listening: keeps the responses not sent yet, for drainRequests. */
export function trackResponses(server: Server) {
	const open = new Set<ServerResponse>()
	unfinished.set(server, open)
	server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
		open.add(response)
		response.once('close', () => open.delete(response))
	})
}

// A keep-alive connection the server is about to close must not get another request: every
// response from now on says so, and Node closes the connection after it.
function closeAfter(response: ServerResponse) {
	if (!response.headersSent) response.setHeader('Connection', 'close')
}

/**
 * Stops accepting connections and waits for requests in flight (slow uploads included) to
 * finish, at most `graceMs`; then cuts the connections that are left. Responses sent while
 * draining say `Connection: close`, so no client reuses a connection being closed.
 */
export async function drainRequests(server: Server, graceMs: number) {
	for (const response of unfinished.get(server) ?? []) closeAfter(response)
	server.on('request', (_request: IncomingMessage, response: ServerResponse) =>
		closeAfter(response),
	)
	const closed = new Promise<void>((resolve) => server.close(() => resolve()))
	// Keep-alive connections that finish a request while we wait are closed as they go idle.
	server.closeIdleConnections()
	const idle = setInterval(() => server.closeIdleConnections(), 250)
	let timer: NodeJS.Timeout | undefined
	const timedOut = new Promise<boolean>((resolve) => {
		timer = setTimeout(() => resolve(true), graceMs)
	})
	const late = await Promise.race([closed.then(() => false), timedOut])
	clearInterval(idle)
	clearTimeout(timer)
	if (late) {
		server.closeAllConnections()
		await closed
	}
	return { cut: late }
}

/**
 * The last line of defence, for server.ts and worker.ts: a promise nobody handled that
 * rejected because the database went away is logged and the process keeps running (every
 * piece of work it belonged to is retried from its checkpoint, and lint keeps such promises
 * out of server code); any other unhandled rejection still ends the process, as Node's default.
 */
export function survivingDatabaseRejections(log: (error: unknown) => void) {
	process.on('unhandledRejection', (reason) => {
		if (isDatabaseConnectionError(reason)) return log(reason)
		throw reason
	})
}
