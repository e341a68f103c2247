import { FetchError, ofetch, type FetchOptions } from 'ofetch'
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

	constructor(options: {
		status: number
		body: unknown
		method: string
		url: string
		retryAfter?: string | null
	}) {
		super(`${options.method} ${options.url} answered ${options.status}`)
		this.name = 'HttpError'
		this.status = options.status
		this.body = options.body
		this.method = options.method
		this.url = options.url
		this.retryAfterSeconds = parseRetryAfter(options.retryAfter)
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
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
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
	async function request<T>(path: string, request: RequestOptions = {}): Promise<HttpResponse<T>> {
		const method = request.method ?? 'GET'
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
	}
}
