import type { IncomingMessage } from 'node:http'
import { Transform, type Readable } from 'node:stream'
import { createReadableStreamFromReadable } from '@react-router/node'
import type {
	Request as ExpressRequest,
	RequestHandler,
	Response as ExpressResponse,
} from 'express'
import type { ServerRouteHandle } from './route-handles.server.ts'

// Request bodies are limited on the bytes actually read, whatever the client declares
// (docs/decisions/0022-http-hardening.md): every reader (React Router, the embedded auth
// service, the CSV upload, the Stripe webhook) reads the counted stream made here, never
// the socket itself.

const bodies = new WeakMap<IncomingMessage, Readable>()

export class PayloadTooLarge extends Error {
	status = 413
	constructor() {
		super('Payload Too Large')
	}
}

/**
 * Refuses a body over the limit (a multipart upload to a route that declares
 * `handle.bodyLimit = 'upload'` has the larger one): at once when Content-Length says so,
 * else as soon as the bytes read pass it. Either way the answer is 413 and the connection
 * closes, so the rest of the body is never read.
 */
export function bodyLimit(
	limit: number,
	uploadLimit: number,
	handleFor: (pathname: string) => ServerRouteHandle,
): RequestHandler {
	return (req, res, next) => {
		const max = isUpload(req, handleFor) ? uploadLimit : limit
		const declared = req.headers['content-length']
		if (declared !== undefined && !(Number(declared) <= max)) {
			refuse(req, res)
			return
		}
		// GET and HEAD bodies are never read (React Router ignores them); Node drops them.
		if (req.method === 'GET' || req.method === 'HEAD') {
			next()
			return
		}
		let read = 0
		const counted = new Transform({
			transform(chunk: Buffer, _encoding, done) {
				read += chunk.byteLength
				if (read > max) {
					refuse(req, res)
					done(new PayloadTooLarge())
				} else done(null, chunk)
			},
		})
		// A reader that fails on the error answers its own way; the 413 is already sent.
		counted.on('error', () => {})
		req.pipe(counted)
		bodies.set(req, counted)
		// pipe() does not pass on a client that went away mid-body: the reader would wait forever.
		req.once('close', () => {
			if (!req.complete) counted.destroy(new Error('The client closed the request'))
		})
		// Answered before the body was read (a redirect, a 403): drop the rest, still counted,
		// so the connection can serve the next request without holding anything.
		res.once('finish', () => {
			if (req.complete || req.destroyed) return
			req.unpipe(counted)
			req.on('data', (chunk: Buffer) => {
				read += chunk.byteLength
				if (read > max) req.socket.destroy()
			})
			req.resume()
		})
		next()
	}
}

function refuse(req: ExpressRequest, res: ExpressResponse) {
	req.unpipe()
	if (res.headersSent) return
	// Connection: close ends the connection once the answer is out, so the rest is not read.
	res.status(413).set('Connection', 'close').type('text/plain').send('Payload Too Large')
}

/** A multipart POST to a route that takes uploads (its form posts to `.data` with JavaScript). */
function isUpload(req: ExpressRequest, handleFor: (pathname: string) => ServerRouteHandle) {
	return (
		req.method === 'POST' &&
		(req.headers['content-type'] ?? '').startsWith('multipart/form-data') &&
		handleFor(req.path).bodyLimit === 'upload'
	)
}

/** The request's URL as the app sees it (behind a trusted proxy: the host it forwards). */
export function requestUrl(req: ExpressRequest): URL {
	const [, forwardedPort] = req.app.enabled('trust proxy')
		? (req.get('X-Forwarded-Host')?.split(':') ?? [])
		: []
	const [, hostPort] = req.get('host')?.split(':') ?? []
	const port = [forwardedPort, hostPort]
		.map((p) => Number.parseInt(p ?? '', 10))
		.find((p) => Number.isSafeInteger(p))
	const host = `${req.hostname.split(/[\\/?#@]/)[0] || 'localhost'}${port ? `:${port}` : ''}`
	return new URL(`${req.protocol}://${host}${req.originalUrl}`)
}

/**
 * The Fetch API Request for a handler (React Router, the auth service), its body the counted
 * stream; the signal aborts when the client goes away. As @react-router/express builds it.
 */
export function fetchRequest(
	req: ExpressRequest,
	res: ExpressResponse,
	url = requestUrl(req),
): globalThis.Request {
	let controller: AbortController | null = new AbortController()
	const signal = controller.signal
	res.on('finish', () => (controller = null))
	res.on('close', () => controller?.abort())
	const headers = new Headers()
	for (const [key, values] of Object.entries(req.headers)) {
		if (!values) continue
		if (Array.isArray(values)) for (const value of values) headers.append(key, value)
		else headers.set(key, values)
	}
	const body = bodies.get(req)
	return new Request(url.href, {
		method: req.method,
		headers,
		signal,
		...(body ? { body: createReadableStreamFromReadable(body), duplex: 'half' } : {}),
	} as RequestInit)
}
