// A local fake PostHog collector. posthog-js POSTs events to /e/ (also /i/v0/e/, /batch/,
// /capture/, /s/ for recordings) with `compression=gzip-js` bodies (gzip) or base64 `data=`
// forms, and reads /flags/ and /array/<key>/config(.js) by GET or POST; posthog-node POSTs
// JSON batches to /batch/. Every event is kept; GET /_events returns them, filtered by
// ?distinct_id= or ?event=.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

export type CapturedEvent = {
	event: string
	distinct_id?: string
	properties: Record<string, unknown>
	$set?: Record<string, unknown>
	api_key?: string
	path: string
}

/** A request the collector got: `POST /e/`, and the client's User-Agent (browser or library). */
export type CollectorRequest = { request: string; userAgent: string }

export type FakePostHog = {
	url: string
	events: CapturedEvent[]
	requests: CollectorRequest[]
	close(): Promise<void>
}

function decode(body: Buffer, url: URL, headers: http.IncomingHttpHeaders): unknown {
	let raw = body
	const gzip =
		url.searchParams.get('compression') === 'gzip-js' ||
		headers['content-encoding'] === 'gzip' ||
		(raw[0] === 0x1f && raw[1] === 0x8b)
	if (gzip) raw = gunzipSync(raw)
	let text = raw.toString('utf8')
	if (String(headers['content-type'] ?? '').includes('x-www-form-urlencoded')) {
		const data = new URLSearchParams(text).get('data') ?? ''
		text =
			url.searchParams.get('compression') === 'base64'
				? Buffer.from(data, 'base64').toString()
				: data
	}
	try {
		return JSON.parse(text)
	} catch {
		return null
	}
}

function toEvents(payload: unknown, path: string): CapturedEvent[] {
	if (!payload) return []
	const object = payload as { batch?: unknown[]; api_key?: string }
	const list = Array.isArray(payload)
		? payload
		: Array.isArray(object.batch)
			? object.batch
			: [payload]
	return list
		.filter((e): e is Record<string, unknown> => Boolean(e) && typeof e === 'object')
		.map((e) => {
			const properties = (e.properties ?? {}) as Record<string, unknown>
			return {
				event: String(e.event),
				distinct_id: (e.distinct_id ?? properties.distinct_id) as string | undefined,
				properties,
				$set: (e.$set ?? properties.$set) as Record<string, unknown> | undefined,
				api_key: (e.api_key ?? object.api_key ?? properties.token) as string | undefined,
				path,
			}
		})
}

export async function startFakePostHog(options: { port?: number } = {}): Promise<FakePostHog> {
	const events: CapturedEvent[] = []
	const requests: CollectorRequest[] = []
	const server = http.createServer((req, res) => {
		const origin = req.headers.origin
		const cors: Record<string, string> = {
			'Access-Control-Allow-Origin': origin ?? '*',
			'Access-Control-Allow-Credentials': 'true',
			'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? '*',
			'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
		}
		if (req.method === 'OPTIONS') {
			res.writeHead(204, cors).end()
			return
		}
		const url = new URL(req.url ?? '/', 'http://fake')
		const chunks: Buffer[] = []
		req.on('data', (chunk: Buffer) => chunks.push(chunk))
		req.on('end', () => {
			const json = (status: number, body: unknown) => {
				res.writeHead(status, { ...cors, 'Content-Type': 'application/json' })
				res.end(JSON.stringify(body))
			}
			if (url.pathname === '/_events' && req.method === 'DELETE') {
				events.length = 0
				requests.length = 0
				return json(200, { ok: true })
			}
			if (url.pathname === '/_requests') return json(200, requests)
			if (url.pathname === '/_events') {
				const distinct = url.searchParams.get('distinct_id')
				const name = url.searchParams.get('event')
				return json(
					200,
					events.filter(
						(e) => (!distinct || e.distinct_id === distinct) && (!name || e.event === name),
					),
				)
			}
			requests.push({
				request: `${req.method} ${url.pathname}`,
				userAgent: req.headers['user-agent'] ?? '',
			})
			if (url.pathname.startsWith('/flags') || url.pathname.startsWith('/decide')) {
				return json(200, {
					flags: {},
					featureFlags: {},
					featureFlagPayloads: {},
					errorsWhileComputingFlags: false,
					sessionRecording: false,
				})
			}
			if (url.pathname.startsWith('/array/')) {
				if (url.pathname.endsWith('.js')) {
					res.writeHead(200, { ...cors, 'Content-Type': 'application/javascript' })
					return res.end('')
				}
				return json(200, { sessionRecording: false, supportedCompression: ['gzip-js'] })
			}
			if (req.method === 'POST') {
				const path = url.pathname
				if (!path.startsWith('/s')) {
					events.push(...toEvents(decode(Buffer.concat(chunks), url, req.headers), path))
				}
				return json(200, { status: 1 })
			}
			json(404, { detail: 'not found' })
		})
	})
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	const { port } = server.address() as AddressInfo
	return {
		url: `http://127.0.0.1:${port}`,
		events,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	}
}
