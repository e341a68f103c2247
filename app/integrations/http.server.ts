import http from 'node:http'
import https from 'node:https'
import { FetchError, ofetch, type FetchOptions } from 'ofetch'
import type { z } from 'zod'
import { isBlockedAddress, userUrlFetch } from './outbound.server.ts'

/**
 * Outgoing HTTP with SPEC.md section 7's defaults: safe methods are retried
 * once on these statuses; POST, PUT, PATCH and DELETE are never retried here
 * (job-level retries with backoff sit above, where an operation is idempotent);
 * every status of 400 and up is an HttpError carrying status and body.
 */
export const RETRY_STATUS_CODES = [408, 409, 425, 429, 500, 502, 503, 504] as const
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export class HttpError extends Error {
	readonly status: number
	readonly body: unknown
	readonly method: string
	readonly url: string
	/** seconds from a Retry-After header, when the server sent one */
	readonly retryAfterSeconds: number | undefined
	/** the answer's headers (rate-limit windows some services report there) */
	readonly headers: Headers | undefined

	constructor(options: {
		status: number
		body: unknown
		method: string
		url: string
		retryAfter?: string | null
		headers?: Headers
	}) {
		super(`${options.method} ${options.url} answered ${options.status}`)
		this.name = 'HttpError'
		this.status = options.status
		this.body = options.body
		this.method = options.method
		this.url = options.url
		this.retryAfterSeconds = parseRetryAfter(options.retryAfter)
		this.headers = options.headers
	}

	/** worth trying again later (rate limited or the server's fault) */
	get retryable() {
		return (RETRY_STATUS_CODES as readonly number[]).includes(this.status)
	}
}

/** The request never got an answer (refused, reset, timed out, or an internal address refused). */
export class NetworkError extends Error {
	/** a user-set URL led to an internal address: nothing was sent, trying again will not help */
	readonly blocked: boolean
	constructor(message: string, cause: unknown) {
		super(message, { cause })
		this.name = 'NetworkError'
		this.blocked = isBlockedAddress(cause)
	}
}

/**
 * A 2xx answer that is not what the API documents (not JSON, or without the fields a job
 * relies on): never read as "nothing there". Each client turns it into its own transient
 * error, so the job retries it like an outage and fails, not "Done", when it stays so.
 */
export class MalformedAnswerError extends Error {
	readonly method: string
	readonly url: string
	readonly status: number
	/** where the answer differs from the documented shape (zod's issues, shortened) */
	readonly problems: string[]
	constructor(options: { method: string; url: string; status: number; problems: string[] }) {
		super(
			`${options.method} ${options.url} answered ${options.status} with an undocumented body: ${options.problems.join('; ')}`,
		)
		this.name = 'MalformedAnswerError'
		this.method = options.method
		this.url = options.url
		this.status = options.status
		this.problems = options.problems
	}
}

/** Checks an answer against its documented shape (zod), or throws MalformedAnswerError. */
export function checkAnswer<S extends z.ZodType>(
	schema: S,
	data: unknown,
	where: { method: string; url: string; status?: number },
): z.infer<S> {
	const result = schema.safeParse(data)
	if (result.success) return result.data
	const problems = result.error.issues
		.slice(0, 3)
		.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
	if (typeof data === 'string') problems.unshift('not JSON')
	throw new MalformedAnswerError({ ...where, status: where.status ?? 200, problems })
}

function parseRetryAfter(value: string | null | undefined) {
	if (!value) return undefined
	const seconds = Number(value)
	if (Number.isFinite(seconds)) return Math.max(0, seconds)
	const date = Date.parse(value)
	return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

const PROTOTYPE_KEY = /"(?:__proto__|constructor)"\s*:/

/**
 * An answer's text as JSON when it is JSON, else the text itself (as ofetch's destr does), for
 * clients whose answers are large: plain JSON.parse unless the text names a prototype key,
 * which is then dropped as destr drops it (never copied onto an object later).
 */
export function parseJsonAnswer(text: string): unknown {
	const start = text.trimStart()[0]
	if (start !== '{' && start !== '[') {
		try {
			return JSON.parse(text)
		} catch {
			return text
		}
	}
	try {
		return PROTOTYPE_KEY.test(text)
			? JSON.parse(text, (key, value: unknown) =>
					key === '__proto__' ||
					(key === 'constructor' && value && typeof value === 'object' && 'prototype' in value)
						? undefined
						: value,
				)
			: JSON.parse(text)
	} catch {
		return text
	}
}

export type HttpClientOptions = {
	baseURL: string
	headers?: Record<string, string>
	timeoutMs?: number
	/** for tests: wait less between the one retry of safe methods */
	retryDelayMs?: number
	/**
	 * baseURL came from a user (not from the platform's environment): connect to public
	 * addresses only, unless ALLOW_PRIVATE_URLS, and never follow a redirect (outbound.server.ts)
	 */
	userUrl?: boolean
	/** how answers are read; ofetch's default (destr) otherwise */
	parseResponse?: (text: string) => unknown
	/**
	 * `keep-alive`: GETs without a body go through node:http on a keep-alive agent, not fetch
	 * (about a third of fetch's CPU a call; for clients making a hundred calls a second on a
	 * platform URL: decision 0099). Same errors, timeout and one retry; never for a user's URL.
	 */
	transport?: 'fetch' | 'keep-alive'
}

export type RequestOptions = {
	method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
	query?: Record<string, string | number | boolean | undefined>
	body?: unknown
	headers?: Record<string, string>
	signal?: AbortSignal
	timeoutMs?: number
}

export type HttpResponse<T> = { data: T; status: number; headers: Headers }

export type HttpClient = {
	request<T>(path: string, options?: RequestOptions): Promise<HttpResponse<T>>
	json<T>(path: string, options?: RequestOptions): Promise<T>
	/** the answer checked against its documented shape: MalformedAnswerError when it is not */
	checked<S extends z.ZodType>(
		schema: S,
		path: string,
		options?: RequestOptions,
	): Promise<HttpResponse<z.infer<S>>>
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
	const options_ = options
	const client = ofetch.create(
		{
			baseURL: options.baseURL,
			headers: { Accept: 'application/json', ...options.headers },
			timeout: options.timeoutMs ?? 30_000,
			retryStatusCodes: [...RETRY_STATUS_CODES],
			retryDelay: options.retryDelayMs ?? 500,
			...(options.parseResponse ? { parseResponse: options.parseResponse } : {}),
		},
		options.userUrl ? { fetch: userUrlFetch } : undefined,
	)
	const lean = options.transport === 'keep-alive' && !options.userUrl ? keepAliveGet(options) : null
	async function request<T>(path: string, request: RequestOptions = {}): Promise<HttpResponse<T>> {
		const method = request.method ?? 'GET'
		if (lean && method === 'GET' && request.body === undefined) return lean<T>(path, request)
		const fetchOptions: FetchOptions<'json'> = {
			method,
			query: request.query,
			body: request.body as FetchOptions['body'],
			headers: request.headers,
			signal: request.signal,
			retry: UNSAFE_METHODS.has(method) ? 0 : 1,
			...(request.timeoutMs ? { timeout: request.timeoutMs } : {}),
		}
		try {
			const response = await client.raw<T>(path, fetchOptions)
			return { data: response._data as T, status: response.status, headers: response.headers }
		} catch (error) {
			if (error instanceof FetchError && error.response) {
				throw new HttpError({
					status: error.response.status,
					body: error.data,
					method,
					url: `${options.baseURL.replace(/\/$/, '')}${path}`,
					retryAfter: error.response.headers.get('retry-after'),
					headers: error.response.headers,
				})
			}
			throw new NetworkError(
				`${method} ${options.baseURL}${path} failed: ${error instanceof Error ? error.message : String(error)}`,
				error,
			)
		}
	}
	return {
		request,
		async json<T>(path: string, options?: RequestOptions) {
			return (await request<T>(path, options)).data
		},
		async checked(schema, path, options) {
			const method = options?.method ?? 'GET'
			// a malformed answer is retried like a 5xx: safe methods once, here
			for (let attempt = 1; ; attempt++) {
				const response = await request<unknown>(path, options)
				try {
					return {
						...response,
						data: checkAnswer(schema, response.data, {
							method,
							url: `${options_.baseURL.replace(/\/$/, '')}${path}`,
							status: response.status,
						}),
					}
				} catch (error) {
					if (UNSAFE_METHODS.has(method) || attempt > 1) throw error
					await new Promise((resolve) => setTimeout(resolve, options_.retryDelayMs ?? 500))
				}
			}
		},
	}
}

// one keep-alive agent per origin for the whole process (clients are made per run or per
// check); an idle connection is closed after 5 s
const agents = new Map<string, http.Agent>()
function agentFor(origin: string, secure: boolean) {
	let agent = agents.get(origin)
	if (!agent) {
		agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: 256, timeout: 5000 })
		agents.set(origin, agent)
	}
	return agent
}

/**
 * GETs on node:http with a keep-alive agent, as `request` answers them through ofetch: the
 * query encoded, the answer parsed (parseResponse, else JSON when it is JSON), 4xx/5xx as
 * HttpError, no answer as NetworkError, the timeout, and one retry on RETRY_STATUS_CODES.
 */
function keepAliveGet(options: HttpClientOptions) {
	const base = new URL(options.baseURL)
	const secure = base.protocol === 'https:'
	const agent = agentFor(base.origin, secure)
	const parse = options.parseResponse ?? parseJsonAnswer
	const once = (url: URL, request: RequestOptions) =>
		new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>(
			(resolve, reject) => {
				const req = (secure ? https : http).get(
					url,
					{
						agent,
						headers: { Accept: 'application/json', ...options.headers, ...request.headers },
						signal: request.signal,
						timeout: request.timeoutMs ?? options.timeoutMs ?? 30_000,
					},
					(res) => {
						let text = ''
						res.setEncoding('utf8')
						res.on('data', (chunk: string) => (text += chunk))
						res.on('end', () =>
							resolve({ status: res.statusCode ?? 0, headers: res.headers, text }),
						)
						res.on('error', reject)
					},
				)
				req.on('timeout', () => req.destroy(new Error('The operation was aborted due to timeout')))
				req.on('error', reject)
			},
		)
	return async <T>(path: string, request: RequestOptions): Promise<HttpResponse<T>> => {
		const url = new URL(`${options.baseURL.replace(/\/$/, '')}${path}`)
		for (const [key, value] of Object.entries(request.query ?? {}))
			if (value !== undefined) url.searchParams.set(key, String(value))
		for (let attempt = 1; ; attempt++) {
			let answer
			try {
				answer = await once(url, request)
			} catch (error) {
				throw new NetworkError(
					`GET ${options.baseURL}${path} failed: ${error instanceof Error ? error.message : String(error)}`,
					error,
				)
			}
			const headers = new Headers()
			for (const [name, value] of Object.entries(answer.headers))
				if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
			if (answer.status < 400)
				return { data: parse(answer.text) as T, status: answer.status, headers }
			if (
				attempt === 1 &&
				(RETRY_STATUS_CODES as readonly number[]).includes(answer.status) &&
				!request.signal?.aborted
			) {
				await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 500))
				continue
			}
			throw new HttpError({
				status: answer.status,
				body: parse(answer.text),
				method: 'GET',
				url: `${options.baseURL.replace(/\/$/, '')}${path}`,
				retryAfter: headers.get('retry-after'),
				headers,
			})
		}
	}
}
