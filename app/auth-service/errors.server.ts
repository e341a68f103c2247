// Errors in Supabase Auth's shapes (supabase/auth internal/api/errors.go).

export const API_VERSION_HEADER = 'X-Supabase-Api-Version'
/** The API versions this service knows; the error format changed with 2024-01-01. */
const API_VERSIONS = ['2024-01-01']

/** An error with an HTTP status and a Supabase error code. */
export class AuthApiError extends Error {
	status: number
	code: string
	/** extra top-level body fields (weak_password) */
	extra: Record<string, unknown> | undefined
	constructor(status: number, code: string, message: string, extra?: Record<string, unknown>) {
		super(message)
		this.name = 'AuthApiError'
		this.status = status
		this.code = code
		this.extra = extra
	}
}

/** OAuth-style error: always 400 `{error, error_description}`. */
export class OAuthError extends Error {
	error: string
	description: string
	constructor(error: string, description: string) {
		super(`${error}: ${description}`)
		this.name = 'OAuthError'
		this.error = error
		this.description = description
	}
}

export const badRequest = (code: string, message: string) => new AuthApiError(400, code, message)
export const forbidden = (code: string, message: string) => new AuthApiError(403, code, message)
export const notFound = (code: string, message: string) => new AuthApiError(404, code, message)
export const unprocessable = (code: string, message: string) => new AuthApiError(422, code, message)
export const tooManyRequests = (code: string, message: string) =>
	new AuthApiError(429, code, message)
export const internal = (message: string) => new AuthApiError(500, 'unexpected_failure', message)

export function weakPasswordError(message: string, reasons: string[]) {
	return new AuthApiError(422, 'weak_password', message, { weak_password: { reasons } })
}

/**
 * The closest API version at or before the requested one, or null for the initial (legacy)
 * version: absent, malformed or older than every known version.
 */
export function requestApiVersion(request: Request): string | null {
	const value = request.headers.get(API_VERSION_HEADER)?.trim()
	if (!value || !/^2\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(value)) return null
	let found: string | null = null
	for (const version of API_VERSIONS) if (version <= value) found = version
	return found
}

export function errorResponse(error: unknown, request: Request): Response {
	const headers = new Headers({ 'Content-Type': 'application/json' })
	const version = requestApiVersion(request)
	if (version) headers.set(API_VERSION_HEADER, version)

	if (error instanceof OAuthError) {
		return new Response(
			JSON.stringify({ error: error.error, error_description: error.description }),
			{
				status: 400,
				headers,
			},
		)
	}
	const known =
		error instanceof AuthApiError
			? error
			: new AuthApiError(
					500,
					'unexpected_failure',
					'Unexpected failure, please check server logs for more information',
				)
	headers.set('x-sb-error-code', known.code)
	const body = version
		? { code: known.code, message: known.message, ...known.extra }
		: { code: known.status, error_code: known.code, msg: known.message, ...known.extra }
	return new Response(JSON.stringify(body), { status: known.status, headers })
}
