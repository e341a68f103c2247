import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import compression from 'compression'
import express, { type RequestHandler } from 'express'
import helmet from 'helmet'
import { writeReadableStreamToWritable } from '@react-router/node'
import { sendResponse } from '@remix-run/node-fetch-server'
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from 'react-router'
import { getConfig } from '../config.server.ts'
import { createLoadContext } from '../utils/load-context.server.ts'
import { CLIENT_IP_HEADER } from '../auth-service/service.server.ts'
import { getEmbeddedAuthService } from '../services/auth/endpoint.server.ts'
import { fetchHandlerFor, fetchHandlers } from '../fetch-handlers.server.ts'
import { inBackground } from '../utils/background.server.ts'
import { logRequestFailure } from '../utils/logger.server.ts'
import { bodyLimit, fetchRequest, requestUrl } from './request-body.server.ts'
import { routeHandles, type RouteDeclarations } from './route-handles.server.ts'
import { wellFormedUrl } from './well-formed-url.server.ts'
import { buildsByFirstSegment } from './routes-by-first-segment.server.ts'
import { pagesInProgress, type PagesInProgress } from './pages-in-progress.server.ts'
import { sameOriginOnly } from './same-origin.server.ts'
import {
	forwardByHost,
	listenForForwardingChanges,
} from '../services/domains/forwarding-cache.server.ts'

// A page load still working after this long stops holding its slot (pages-in-progress.server.ts).
const PAGE_SLOT_MS = 1000
// A page load that waited this long for a slot is answered 503 with Retry-After: the queue
// never grows without bound behind a process that cannot keep up.
const PAGE_MAX_WAIT_MS = 10_000

/**
 * Enough page loads at once to keep the one thread busy while some wait on the database: an
 * embedded database answers in a fraction of a millisecond, so 4 do; one across a network
 * keeps each load waiting several round trips longer, so more are let in.
 */
function pagesAtOnce(config: { PAGES_IN_PROGRESS?: number; DATABASE_URL?: string }) {
	return config.PAGES_IN_PROGRESS ?? (config.DATABASE_URL ? 8 : 4)
}

/**
 * The Express app, in DESIGN.md's order: security headers, (URL forwarding by
 * Host), the origin check and body limit, the fetch handlers of fetch-handlers.server.ts (the
 * public API), static assets, /auth/v1 when embedded, then React Router.
 */
export async function createApp(options: {
	nonce: () => string
	build?: () => Promise<ServerBuild>
}) {
	const config = getConfig()
	const app = express()
	app.disable('x-powered-by')
	app.set('trust proxy', config.TRUST_PROXY)

	const isDev = config.NODE_ENV === 'development'
	// The browser also talks to the IP-to-country lookup and, with a key, PostHog.
	const posthogOrigins = config.POSTHOG_KEY ? posthogSources(config.POSTHOG_HOST) : []
	const connectSources = ["'self'", new URL(config.IP_COUNTRY_URL).origin, ...posthogOrigins]
	const headers = securityHeaders(
		helmet({
			contentSecurityPolicy: {
				useDefaults: true,
				directives: {
					'script-src': [
						"'self'",
						(_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`,
						...posthogOrigins,
					],
					'connect-src': isDev ? [...connectSources, 'ws:'] : connectSources,
					'img-src': ["'self'", 'data:'],
					'style-src': ["'self'", "'unsafe-inline'"],
					'upgrade-insecure-requests': config.APP_URL.startsWith('https:') ? [] : null,
				},
			},
			crossOriginEmbedderPolicy: false,
			// no-referrer makes browsers send `Origin: null` on form posts, which
			// React Router's action origin check (rightly) refuses.
			referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
			strictTransportSecurity: config.APP_URL.startsWith('https:'),
		}),
	)
	// Production hands React Router the build itself, not a function: given a function it
	// re-derives its route tables (flattening and ranking every route) on every request.
	let build: ServerBuild | (() => Promise<ServerBuild>)
	const dir = process.env.BUILD_DIR ?? 'build'
	const vite = isDev
		? await import('vite').then((v) =>
				v.createServer({ server: { middlewareMode: true }, appType: 'custom' }),
			)
		: null
	if (vite)
		build = () => vite.ssrLoadModule('virtual:react-router/server-build') as Promise<ServerBuild>
	else
		build = options.build
			? await options.build()
			: ((await import(pathToFileURL(path.resolve(dir, 'server/index.js')).href)) as ServerBuild)
	// What routes declare of themselves (body limits, the page queue), read once: in
	// development a changed declaration needs a restart.
	const routeHandleFor = routeHandles(typeof build === 'function' ? await build() : build)
	// a handler mounted beside React Router declares its own (decision 0108)
	const handleFor = (pathname: string): RouteDeclarations =>
		fetchHandlerFor(pathname)?.declarations ?? routeHandleFor(pathname)

	// A forwarded domain's Host gets its redirect before anything else (DESIGN.md section 8).
	inBackground(listenForForwardingChanges(), 'the forwarding listener failed')
	const compress = compression()
	// One Express layer for what every request goes through: each layer of Express's router
	// costs its own path match and dispatch.
	app.use(
		inOrder(
			(req, res, next) => {
				// Only the socket (or a trusted proxy) says who the client is.
				req.headers[CLIENT_IP_HEADER] = req.ip ?? req.socket.remoteAddress ?? ''
				// a mounted handler's answer is no page (the API's JSON): a fixed policy, no nonce
				if (fetchHandlerFor(req.path)) {
					headers.fixed(res)
					return next()
				}
				const nonce = options.nonce()
				res.locals.cspNonce = nonce
				headers.page(res, nonce)
				next()
			},
			wellFormedUrl(),
			forwardByHost(),
			sameOriginOnly({ appUrl: config.APP_URL, trustProxy: config.TRUST_PROXY }),
			bodyLimit(config.BODY_LIMIT_BYTES, config.UPLOAD_LIMIT_BYTES, handleFor),
			// a client that takes no compressed answer gets nothing wrapped for it
			(req, res, next) => (acceptsEncoding(req) ? compress(req, res, next) : next()),
		),
	)

	// What is no page (the public API): fetch handlers, each answer written with one end()
	// (decision 0108)
	for (const handler of fetchHandlers)
		app.use(fetchHandler(handler.matches, handler.fetch, sendWhole))

	if (vite) app.use(vite.middlewares)
	else {
		// Hashed file names: cache forever. Everything else in public/: an hour.
		app.use('/assets', express.static(`${dir}/client/assets`, { immutable: true, maxAge: '1y' }))
		app.use(
			staticFilesOnly(
				`${dir}/client`,
				express.static(`${dir}/client`, { maxAge: '1h', index: false }),
			),
		)
	}

	if (config.embeddedAuth) {
		const service = await getEmbeddedAuthService()
		app.use(
			fetchHandler(
				(pathname) => pathname.startsWith('/auth/v1/'),
				(request) => service.fetch(request),
				sendResponse,
			),
		)
	}

	app.all(
		'/{*splat}',
		reactRouterHandler(
			build,
			config.NODE_ENV,
			(res, routeHandle) => createLoadContext(res.locals.cspNonce, routeHandle),
			pagesInProgress({
				limit: pagesAtOnce(config),
				holdMs: PAGE_SLOT_MS,
				maxWaitMs: PAGE_MAX_WAIT_MS,
			}),
			handleFor,
		),
	)
	app.use(((error, req, res, _next) => {
		logRequestFailure(error, req.originalUrl, 'request failed')
		// Express's own client errors (a body it cannot read, a bad escape it decoded) keep
		// their 4xx status: the client's mistake
		const status = clientErrorStatus(error)
		if (status) {
			if (!res.headersSent)
				res
					.status(status)
					.type('text/plain')
					.send(STATUS_CODES[status] ?? 'Bad Request')
			return
		}
		if (!res.headersSent) res.status(500).type('text/plain').send('Internal Server Error')
	}) as express.ErrorRequestHandler)
	return app
}

/**
 * A fetch handler (Request in, Response out) for the paths `matches` takes; `send` writes its
 * answer unless the request was already answered (413 past the body limit) or is gone.
 */
function fetchHandler(
	matches: (pathname: string) => boolean,
	fetch: (request: Request) => Promise<Response> | Response,
	send: (res: express.Response, response: Response) => Promise<void>,
): RequestHandler {
	return (req, res, next) => {
		if (!matches(req.path)) return next()
		Promise.resolve(fetch(fetchRequest(req, res)))
			.then((response) =>
				res.writableEnded || res.destroyed ? response.body?.cancel() : send(res, response),
			)
			.catch(next)
	}
}

/**
 * A whole answer in one write: its body read at once (the API's answers are built whole), then
 * the head and the bytes with one end(), with their length, rather than a stream pumped
 * chunk by chunk and then a chunked transfer's last write.
 */
async function sendWhole(res: express.Response, response: Response) {
	const body =
		response.body && res.req.method !== 'HEAD' ? Buffer.from(await response.arrayBuffer()) : null
	if (res.writableEnded || res.destroyed) return
	// set one by one, not handed to writeHead: compression's hook on writeHead reads no headers
	// given after an empty status text. Set-Cookie, repeated, keeps each of its lines.
	for (const [name, value] of response.headers) {
		if (name === 'set-cookie') res.append(name, value)
		else res.setHeader(name, value)
	}
	if (body) res.setHeader('Content-Length', body.byteLength)
	if (response.statusText) res.statusMessage = response.statusText
	res.statusCode = response.status
	res.end(body)
}

function clientErrorStatus(error: unknown): number | null {
	const status = (error as { status?: unknown } | null)?.status
	return typeof status === 'number' && status >= 400 && status < 500 ? status : null
}

/**
 * Connect-style handlers run one after the other as one handler. An error, passed on, thrown
 * or rejected (also from a handler called back later, as forwarding is), skips the rest and
 * goes to Express's error handler, as between Express's own layers.
 */
function inOrder(...handlers: RequestHandler[]): RequestHandler {
	return (req, res, next) => {
		let index = 0
		const step = (error?: unknown) => {
			if (error !== undefined && error !== null) return next(error)
			const handler = handlers[index++]
			if (!handler) return next()
			try {
				const result: unknown = handler(req, res, step)
				if (result instanceof Promise) result.catch(next)
			} catch (thrown) {
				next(thrown)
			}
		}
		step()
	}
}

/**
 * Helmet's headers, found once: it runs against a stand-in answer whose nonce is a marker,
 * and each page then gets the same headers with its own nonce in the marker's place. An
 * answer that is no page (the API's JSON) gets them with a fixed policy: nothing to run or embed.
 */
function securityHeaders(helmetMiddleware: RequestHandler) {
	const marker = `n0nce${randomBytes(12).toString('hex')}`
	const found: [string, string][] = []
	const standIn = {
		locals: { cspNonce: marker },
		setHeader: (name: string, value: unknown) => void found.push([name, String(value)]),
		removeHeader: () => {},
	}
	let failed: unknown
	void helmetMiddleware(
		{ headers: {} } as express.Request,
		standIn as unknown as express.Response,
		(error?: unknown) => (failed = error),
	)
	if (failed) throw failed
	const headers = found.map(([name, value]) => [name, value.split(marker)] as const)
	const fixed = found.map(([name, value]) =>
		name.toLowerCase() === 'content-security-policy'
			? ([name, "default-src 'none'; frame-ancestors 'none'"] as const)
			: ([name, value] as const),
	)
	return {
		page(res: express.Response, nonce: string) {
			for (const [name, parts] of headers) {
				res.setHeader(name, parts.length === 1 ? parts[0]! : parts.join(nonce))
			}
		},
		fixed(res: express.Response) {
			for (const [name, value] of fixed) res.setHeader(name, value)
		},
	}
}

/** Asks for a compressed answer (browsers always do). */
function acceptsEncoding(req: express.Request) {
	const accepted = req.headers['accept-encoding']
	return accepted !== undefined && accepted !== '' && accepted !== 'identity'
}

/**
 * The files of public/ (copied into the client build) are known once built: a request for
 * anything else (every page) skips the static middleware, which would look for a file on
 * disk and build a 404 error, stack trace and all, on every request.
 */
function staticFilesOnly(dir: string, serve: RequestHandler): RequestHandler {
	const names = new Set(existsSync(dir) ? readdirSync(dir) : [])
	return (req, res, next) => {
		if (req.method !== 'GET' && req.method !== 'HEAD') return next()
		const first = req.path.split('/')[1] ?? ''
		let name = first
		try {
			name = decodeURIComponent(first)
		} catch {
			// not a file name we have
		}
		if (!names.has(name)) return next()
		serve(req, res, next)
	}
}

/** PostHog's API origin and, for its lazily loaded scripts (recorder), its assets origin. */
function posthogSources(host: string) {
	const url = new URL(host)
	const origins = [url.origin]
	const assets = url.hostname.match(/^(us|eu)\.i\.posthog\.com$/)
	if (assets) origins.push(`https://${assets[1]}-assets.i.posthog.com`)
	return origins
}

/**
 * React Router behind Express, as @react-router/express does it, but reading the request
 * body through the body limit's counted stream (request-body.server.ts).
 */
function reactRouterHandler(
	build: ServerBuild | (() => Promise<ServerBuild>),
	mode: string,
	loadContext: (res: express.Response, routeHandle: RouteDeclarations) => RouterContextProvider,
	pages: PagesInProgress,
	handleFor: (pathname: string) => RouteDeclarations,
): RequestHandler {
	const handlerFor = handlersByPath(build, mode)
	return async (req, res, next) => {
		let leave = () => {}
		const routeHandle = handleFor(req.path)
		try {
			// page loads (documents and their .data) wait their turn; forms, uploads and the
			// routes that declare so (health checks) do not
			if ((req.method === 'GET' || req.method === 'HEAD') && routeHandle.pageQueue !== 'skip') {
				const slot = await pages.enter()
				if (!slot) {
					if (!res.headersSent)
						res
							.status(503)
							.set({ 'Retry-After': '5', 'Cache-Control': 'no-store' })
							.type('text/plain')
							.send('Service Unavailable: too busy, try again in a few seconds.')
					return
				}
				leave = slot
			}
			// gone while it waited: nothing to work on
			if (res.destroyed || res.writableEnded) return
			const url = requestUrl(req)
			const handle = handlerFor(url.pathname)
			// the slot covers loaders and the render up to the first bytes, not the client reading
			// them (a long download to a slow reader would hold it)
			const response = await handle(
				fetchRequest(req, res, url),
				loadContext(res, routeHandle),
			).finally(leave)
			// Already answered (413 past the body limit) or the client went away.
			if (res.destroyed || res.writableEnded) {
				await response.body?.cancel()
				return
			}
			res.statusMessage = response.statusText
			res.status(response.status)
			for (const [key, value] of response.headers.entries()) res.append(key, value)
			if (response.headers.get('Content-Type')?.match(/text\/event-stream/i)) res.flushHeaders()
			if (!response.body) {
				res.end()
				return
			}
			await writeReadableStreamToWritable(response.body, res).catch((error: unknown) => {
				if (!(res.destroyed || res.writableEnded)) throw error
			})
		} catch (error) {
			next(error)
		} finally {
			leave()
		}
	}
}

/**
 * React Router's handler for a path: in production one per first segment, over only the
 * routes that segment can match (routes-by-first-segment.server.ts), each made on first use.
 */
function handlersByPath(build: ServerBuild | (() => Promise<ServerBuild>), mode: string) {
	const whole = createRequestHandler(build, mode)
	if (typeof build === 'function') return () => whole
	// split on the first request, as React Router reads the build on its first request too
	let buildFor: ((pathname: string) => ServerBuild) | null | undefined
	const handlers = new Map<ServerBuild, ReturnType<typeof createRequestHandler>>()
	return (pathname: string) => {
		if (buildFor === undefined) buildFor = buildsByFirstSegment(build)
		if (buildFor === null) return whole
		const part = buildFor(pathname)
		let handle = handlers.get(part)
		if (!handle) handlers.set(part, (handle = createRequestHandler(part, mode)))
		return handle
	}
}
