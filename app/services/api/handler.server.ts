import { createHash } from 'node:crypto'
import type { z } from 'zod'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { readFormData } from '../../utils/form-data.server.ts'
import { FormError, statusOf } from '../../utils/http-errors.server.ts'
import { isDatabaseConnectionError } from '../../../db/errors.ts'
import { logger } from '../../utils/logger.server.ts'
import { hasActivePlan } from '../../context.server.ts'
import { screens } from '../../routes.ts'
import { authenticateApiToken, type ApiCaller } from '../api-tokens/api-tokens.server.ts'
import { scopeAllows } from '../api-tokens/scopes.ts'
import { idempotencyKeyOf, oncePerKey } from './idempotency.server.ts'
import { ApiAnswer, CsvAnswer, type ApiOperation } from './operation.ts'
import { csvDownloadHeaders, linesStream } from '../../utils/csv-download.server.ts'
import { ApiProblem, problemResponse, type FieldError } from './problem.server.ts'
import { rateLimitHeaders, takeRequest } from './rate-limit.server.ts'

// The API's conventions in one place (issue 37, decision 0093): bearer tokens only, scopes,
// per-token rate limits, zod-validated input, Idempotency-Key on POSTs, problem+json errors.
// Operations only say what they take and call the services the screens use.

export const API_BASE = '/api/v1'

type Match = { operation: ApiOperation; params: Record<string, string> }

/** The operation a method and path name, or why none: 404 (no such path) or 405. */
export function matchOperation(
	operations: readonly ApiOperation[],
	method: string,
	path: string,
): Match | ApiProblem {
	const parts = path.split('/').filter(Boolean)
	let pathMatched = false
	for (const operation of operations) {
		const pattern = operation.path.split('/').filter(Boolean)
		if (pattern.length !== parts.length) continue
		const params: Record<string, string> = {}
		const same = pattern.every((segment, i) => {
			const part = parts[i]!
			if (segment.startsWith('{')) {
				params[segment.slice(1, -1)] = decodeURIComponent(part)
				return true
			}
			return segment === part
		})
		if (!same) continue
		pathMatched = true
		if (operation.method === method) return { operation, params }
	}
	return pathMatched
		? new ApiProblem(405, 'method_not_allowed', `${method} is not allowed on this path.`)
		: new ApiProblem(404, 'route_not_found', 'There is no such API route.')
}

export function bearerTokenOf(request: Request) {
	const header = request.headers.get('Authorization') ?? ''
	const match = /^Bearer\s+(\S+)$/i.exec(header)
	return match ? match[1]! : null
}

/** Answers one API request (the path under /api/v1). */
export async function handleApiRequest(
	request: Request,
	operations: readonly ApiOperation[],
): Promise<Response> {
	const headers = new Headers({ 'Cache-Control': 'no-store' })
	try {
		const url = new URL(request.url)
		const path = url.pathname.slice(API_BASE.length) || '/'
		const token = bearerTokenOf(request)
		if (!token) {
			// a browser's session cookie is no credential here: no CSRF through the API
			throw new ApiProblem(
				401,
				'unauthenticated',
				'Send an API token as "Authorization: Bearer <token>". Sessions are not accepted.',
				{ headers: { 'WWW-Authenticate': 'Bearer' } },
			)
		}
		const caller = await authenticateApiToken(token)
		if (!caller) {
			throw new ApiProblem(401, 'invalid_token', 'This API token is unknown or was revoked.', {
				headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
			})
		}
		const rate = takeRequest(caller.token.id)
		rateLimitHeaders(rate, headers)
		if (!rate.allowed) {
			throw new ApiProblem(429, 'rate_limited', `At most ${rate.limit} requests a minute.`)
		}
		const matched = matchOperation(operations, request.method, path)
		if (matched instanceof ApiProblem) throw matched
		const { operation } = matched
		if (!scopeAllows(caller.token.scopes, operation.scope)) {
			throw new ApiProblem(
				403,
				'insufficient_scope',
				`This token lacks the ${operation.scope} scope.`,
				{
					headers: {
						'WWW-Authenticate': `Bearer error="insufficient_scope" scope="${operation.scope}"`,
					},
				},
			)
		}
		requirePlanAsScreen(operation, caller)
		const params = parse(operation.params, matched.params, 'path')
		const query = parse(operation.query, Object.fromEntries(url.searchParams), 'query')
		if (request.method !== 'POST') {
			return await run(operation, caller, { params, query, body: undefined, request }, headers)
		}
		const body = await readBody(operation, request)
		const key = idempotencyKeyOf(request)
		const go = () => run(operation, caller, { params, query, body: body.value, request }, headers)
		if (!key) return await go()
		return await oncePerKey(
			{
				accountId: caller.token.account_id,
				key,
				fingerprint: `${request.method} ${url.pathname}?${url.searchParams} ${body.fingerprint}`,
			},
			() => go().catch((error: unknown) => errorResponse(error, headers, request)),
		)
	} catch (error) {
		return errorResponse(error, headers, request)
	}
}

/**
 * A write needs a plan exactly when the screen doing the same needs one (its `subscription`
 * middleware, with the guard's own test): a lapsed account reads through the API, as it
 * revokes tokens on /developers, but starts nothing (decision 0104).
 */
function requirePlanAsScreen(operation: ApiOperation, caller: ApiCaller) {
	if (operation.method === 'GET' || !operation.screen) return
	const screen = screens.find((s) => s.name === operation.screen)
	const needsPlan = (screen?.middleware as readonly string[] | undefined)?.includes('subscription')
	if (needsPlan && !hasActivePlan(caller.account)) {
		throw new ApiProblem(
			402,
			'plan_required',
			'This account has no active plan: choose one at /subscription to do this. Reads still work.',
		)
	}
}

async function run(
	operation: ApiOperation,
	caller: ApiCaller,
	input: { params: unknown; query: unknown; body: unknown; request: Request },
	headers: Headers,
) {
	const result = await operation.handle({
		account: caller.account,
		token: caller.token,
		...(input as { params: never; query: never; body: never; request: Request }),
	})
	if (result instanceof CsvAnswer) return csvResponse(result, headers)
	headers.set('Content-Type', 'application/json')
	if (result instanceof ApiAnswer) {
		return new Response(JSON.stringify(result.body), { status: result.status, headers })
	}
	return new Response(JSON.stringify(result), { status: operation.status ?? 200, headers })
}

/** A CSV read as it is sent (a page of rows at a time), never held whole. */
function csvResponse(answer: CsvAnswer, headers: Headers) {
	for (const [name, value] of Object.entries(csvDownloadHeaders(answer.filename)))
		headers.set(name, value)
	return new Response(linesStream(answer.lines), { status: 200, headers })
}

function fieldErrors(error: z.ZodError, where: string): FieldError[] {
	return error.issues.map((issue) => ({
		field: issue.path.length ? issue.path.join('.') : where,
		code: issue.code,
		message: issue.message,
	}))
}

function parse(schema: z.ZodObject | undefined, value: Record<string, string>, where: string) {
	if (!schema) return {}
	const parsed = schema.safeParse(value)
	if (!parsed.success) {
		throw new ApiProblem(400, 'invalid_request', `The ${where} parameters are not valid.`, {
			errors: fieldErrors(parsed.error, where),
		})
	}
	return parsed.data
}

/** The body through the operation's schema (the form's), and what it asked for as a hash. */
async function readBody(operation: ApiOperation, request: Request) {
	const type = request.headers.get('Content-Type') ?? ''
	if (!operation.body) return { value: undefined, fingerprint: '' }
	// read by the operation as it streams in: a repeat is known by its key and length
	if (operation.bodyFormat === 'stream') {
		return { value: undefined, fingerprint: request.headers.get('Content-Length') ?? '' }
	}
	if (operation.bodyFormat === 'multipart') {
		if (!/^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(type)) {
			throw new ApiProblem(415, 'unsupported_media_type', 'Send multipart/form-data.')
		}
		// a body that is not a form is a 400 (thrown, answered as a problem below)
		const formData = await readFormData(request)
		const submission = parseWithZod(formData, { schema: operation.body })
		if (submission.status !== 'success') {
			const errors = Object.entries(submission.error ?? {}).flatMap(([field, messages]) =>
				(messages ?? []).map((message) => ({ field: field || 'body', code: 'invalid', message })),
			)
			throw new ApiProblem(400, 'invalid_request', 'The request body is not valid.', { errors })
		}
		return { value: submission.value, fingerprint: await formFingerprint(formData) }
	}
	if (!/^application\/json/i.test(type)) {
		throw new ApiProblem(415, 'unsupported_media_type', 'Send application/json.')
	}
	let json: unknown
	try {
		json = await request.json()
	} catch {
		throw new ApiProblem(400, 'invalid_json', 'The request body is not valid JSON.')
	}
	const parsed = operation.body.safeParse(json)
	if (!parsed.success) {
		throw new ApiProblem(400, 'invalid_request', 'The request body is not valid.', {
			errors: fieldErrors(parsed.error, 'body'),
		})
	}
	return { value: parsed.data, fingerprint: sha256(canonicalJson(json)) }
}

function sha256(text: string | Uint8Array) {
	return createHash('sha256').update(text).digest('base64url')
}

/** The same JSON in any key order is the same request. */
function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
			a < b ? -1 : a > b ? 1 : 0,
		)
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
	}
	return JSON.stringify(value)
}

/** A form's fields and files' contents, whatever boundary the client chose. */
async function formFingerprint(formData: FormData) {
	const entries: string[] = []
	for (const [name, value] of formData) {
		const text =
			typeof value === 'string'
				? value
				: `${value.name}:${sha256(new Uint8Array(await value.arrayBuffer()))}`
		entries.push(`${name}\0${text}`)
	}
	return sha256(entries.sort().join('\0\0'))
}

const CODES: Record<number, string> = {
	400: 'invalid_request',
	403: 'forbidden',
	404: 'not_found',
	409: 'conflict',
	413: 'payload_too_large',
	429: 'rate_limited',
}

/** A service's refusal (FormError, a thrown 404 or 403) as the API's problem. */
function errorResponse(error: unknown, headers: Headers, request: Request) {
	if (error instanceof ApiProblem) return problemResponse(error, headers)
	// the API's answer to a service's FormError: problem+json with the field, not a form
	// eslint-disable-next-line no-restricted-syntax
	if (error instanceof FormError) {
		const field = error.field ?? 'body'
		return problemResponse(
			new ApiProblem(
				error.status,
				error.status === 429 ? 'limit_reached' : 'invalid_request',
				error.message,
				{
					errors: [{ field, code: 'invalid', message: error.message }],
				},
			),
			headers,
		)
	}
	const status = statusOf(error)
	if (status !== undefined && status >= 400 && status < 500) {
		const data = (error as { data?: unknown }).data
		const detail = typeof data === 'string' ? data : 'The request was refused.'
		return problemResponse(new ApiProblem(status, CODES[status] ?? 'refused', detail), headers)
	}
	// the database away for a moment (decision 0108): try again, as a page's 503 says
	if (isDatabaseConnectionError(error)) {
		return problemResponse(
			new ApiProblem(503, 'unavailable', 'The service is unavailable for a moment. Try again.', {
				headers: { 'Retry-After': '5' },
			}),
			headers,
		)
	}
	logger.error({ err: error, url: request.url }, 'API request failed')
	return problemResponse(
		new ApiProblem(500, 'internal_error', 'Something went wrong on our side. Try again.'),
		headers,
	)
}
