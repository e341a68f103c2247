import { AuthApiError, badRequest } from './errors.server.ts'

export type Body = Record<string, unknown>

export function tooLarge(limit: number) {
	return new AuthApiError(
		413,
		'request_entity_too_large',
		`Request body too large (max ${limit} bytes)`,
	)
}

/**
 * The JSON object in the request body ({} when empty). Reads at most `limit` bytes: a larger
 * body (by Content-Length or as it streams in) is 413.
 */
export async function readJsonBody(request: Request, limit: number): Promise<Body> {
	const length = Number(request.headers.get('content-length') ?? '')
	if (Number.isFinite(length) && length > limit) throw tooLarge(limit)
	if (!request.body) return {}
	const reader = request.body.getReader()
	const chunks: Uint8Array[] = []
	let size = 0
	for (;;) {
		const { done, value } = await reader.read()
		if (done) break
		size += value.byteLength
		if (size > limit) {
			await reader.cancel().catch(() => {})
			throw tooLarge(limit)
		}
		chunks.push(value)
	}
	const text = Buffer.concat(chunks).toString('utf8')
	if (!text.trim()) return {}
	let parsed: unknown
	try {
		parsed = JSON.parse(text)
	} catch (error) {
		throw badRequest(
			'bad_json',
			`Could not parse request body as JSON: ${error instanceof Error ? error.message : 'invalid JSON'}`,
		)
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
		throw badRequest('bad_json', 'Could not parse request body as JSON: expected a JSON object')
	return parsed as Body
}

export function json(body: unknown, init: { status?: number; headers?: HeadersInit } = {}) {
	const headers = new Headers(init.headers)
	headers.set('Content-Type', 'application/json')
	headers.set('Cache-Control', headers.get('Cache-Control') ?? 'no-store')
	return new Response(JSON.stringify(body), { status: init.status ?? 200, headers })
}

export function redirect(location: string) {
	return new Response(null, {
		status: 303,
		headers: { Location: location, 'Cache-Control': 'no-store' },
	})
}

export function str(value: unknown): string {
	return typeof value === 'string' ? value : ''
}

/** A JSON object parameter (data, user_metadata, app_metadata): 400 bad_json when not an object. */
export function objectParam(value: unknown, field: string): Record<string, unknown> | undefined {
	if (value === undefined || value === null) return undefined
	if (typeof value !== 'object' || Array.isArray(value))
		throw badRequest('bad_json', `Could not parse request body as JSON: ${field} must be an object`)
	return value as Record<string, unknown>
}
