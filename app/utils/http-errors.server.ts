import { data } from 'react-router'

/**
 * What services throw when a request may not go on. The root ErrorBoundary shows
 * 404 as the not-found screen and 403 as the access-denied screen.
 */
export function notFound(what = 'This page'): never {
	throw data(`${what} does not exist.`, { status: 404 })
}

export function forbidden(message: string): never {
	throw data(message, { status: 403 })
}

/** Bad input the person can fix: the route shows `message` next to `field` (or above the form). */
export class FormError extends Error {
	field: string | null
	/** the answer's status: 400, or 429 when a limit was reached */
	status: number
	constructor(message: string, field: string | null = null, status = 400) {
		super(message)
		this.name = 'FormError'
		this.field = field
		this.status = status
	}
}

/** The status a thrown response carries (data() or Response), else undefined. */
export function statusOf(error: unknown): number | undefined {
	if (error instanceof Response) return error.status
	if (error && typeof error === 'object' && 'init' in error) {
		const init = (error as { init?: ResponseInit | null }).init
		return init?.status ?? 200
	}
	return undefined
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids come from forms and URLs: anything but a uuid cannot name a row, so it is not found. */
export function isUuid(value: unknown): value is string {
	return typeof value === 'string' && UUID.test(value)
}

type Replyable = {
	reply(options?: {
		formErrors?: string[]
		fieldErrors?: Record<string, string[]>
		hideFields?: string[]
	}): unknown
}

/** conform's reply for a FormError: the message next to its field, or above the form. */
export function replyWithFormError<S extends Replyable>(
	submission: S,
	error: FormError,
	hideFields?: string[],
): ReturnType<S['reply']> {
	return submission.reply({
		...(error.field
			? { fieldErrors: { [error.field]: [error.message] } }
			: { formErrors: [error.message] }),
		...(hideFields ? { hideFields } : {}),
	}) as ReturnType<S['reply']>
}
