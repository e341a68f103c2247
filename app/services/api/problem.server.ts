// Errors of the public API as application/problem+json (RFC 9457): `code` is the machine code
// a client branches on, `errors` the fields at fault (as the forms show them at the field).

export type FieldError = { field: string; code: string; message: string }

export class ApiProblem extends Error {
	status: number
	code: string
	errors: FieldError[]
	headers: Record<string, string>
	constructor(
		status: number,
		code: string,
		detail: string,
		options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
	) {
		super(detail)
		this.status = status
		this.code = code
		this.errors = options.errors ?? []
		this.headers = options.headers ?? {}
	}
}

const TITLES: Record<number, string> = {
	400: 'Bad request',
	401: 'Unauthorized',
	402: 'Payment required',
	403: 'Forbidden',
	404: 'Not found',
	405: 'Method not allowed',
	409: 'Conflict',
	413: 'Payload too large',
	415: 'Unsupported media type',
	422: 'Unprocessable content',
	429: 'Too many requests',
	500: 'Internal server error',
	503: 'Service unavailable',
}

export const PROBLEM_TYPE = 'application/problem+json'

export function problemResponse(problem: ApiProblem, headers: Headers = new Headers()) {
	const body = {
		type: `urn:leadsmith:problem:${problem.code}`,
		title: TITLES[problem.status] ?? 'Error',
		status: problem.status,
		code: problem.code,
		detail: problem.message,
		...(problem.errors.length ? { field: problem.errors[0]!.field, errors: problem.errors } : {}),
	}
	headers.set('Content-Type', PROBLEM_TYPE)
	for (const [name, value] of Object.entries(problem.headers)) headers.set(name, value)
	return new Response(JSON.stringify(body), { status: problem.status, headers })
}
