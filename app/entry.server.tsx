import { createReadableStreamFromReadable } from '@react-router/node'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { ServerRouter, type EntryContext, type RouterContextProvider } from 'react-router'
import { cspNonceContext } from './utils/load-context.server.ts'
import { NonceProvider } from './utils/nonce.ts'
import { CoalescedWrites } from './utils/coalesced-writes.server.ts'
import { logger, logRequestFailure } from './utils/logger.server.ts'
import {
	noteDatabaseOutage,
	RETRY_AFTER_SECONDS,
} from './middleware/database-unavailable.server.ts'

export const streamTimeout = 5_000

export default function handleRequest(
	request: Request,
	responseStatusCode: number,
	responseHeaders: Headers,
	routerContext: EntryContext,
	loadContext: RouterContextProvider,
) {
	const nonce = loadContext.get(cspNonceContext) || undefined
	if (responseStatusCode === 503) responseHeaders.set('Retry-After', String(RETRY_AFTER_SECONDS))
	return new Promise<Response>((resolve, reject) => {
		let shellRendered = false
		const userAgent = request.headers.get('user-agent')
		// Bots and SPA-less clients get the whole document at once.
		const readyEvent =
			(userAgent && isbot(userAgent)) || routerContext.isSpaMode ? 'onAllReady' : 'onShellReady'
		let finished = false
		let timer: ReturnType<typeof setTimeout> | undefined
		const finish = () => {
			finished = true
			clearTimeout(timer)
		}
		const start = () => {
			shellRendered = true
			const body = new CoalescedWrites()
			responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
			resolve(
				new Response(createReadableStreamFromReadable(body), {
					headers: responseHeaders,
					status: responseStatusCode,
				}),
			)
			pipe(body)
		}
		const { pipe, abort } = renderToPipeableStream(
			<NonceProvider value={nonce}>
				<ServerRouter context={routerContext} url={request.url} nonce={nonce} />
			</NonceProvider>,
			{
				nonce,
				onShellReady() {
					if (readyEvent === 'onShellReady') start()
				},
				onAllReady() {
					finish()
					if (readyEvent === 'onAllReady') start()
				},
				onShellError(error: unknown) {
					finish()
					reject(error)
				},
				onError(error: unknown) {
					responseStatusCode = 500
					if (shellRendered) logger.error({ err: error }, 'render error')
				},
			},
		)
		// Aborts a render still waiting after streamTimeout; one that finished clears it, so
		// its timer does not keep the request's render alive for seconds after the answer.
		if (!finished) timer = setTimeout(abort, streamTimeout + 1000)
	})
}

export function handleError(
	error: unknown,
	{ request, context }: { request: Request; context?: RouterContextProvider },
) {
	noteDatabaseOutage(error, context)
	if (request.signal.aborted) return
	logRequestFailure(error, request.url, 'unhandled error')
}

/** Client navigations (.data) that met a database outage: tell when to try again. */
export function handleDataRequest(response: Response) {
	if (response.status === 503) response.headers.set('Retry-After', String(RETRY_AFTER_SECONDS))
	return response
}
