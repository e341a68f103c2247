import { data } from 'react-router'
import { FormError, replyWithFormError } from './http-errors.server.ts'
import { redirectWithError } from './toast.server.ts'

type Replyable = Parameters<typeof replyWithFormError>[0]

/**
 * An action's one answer to what its service threw: a FormError is the form back with its
 * status (400, or 429 at a limit) and the message at its field, beside whatever else the
 * route's component reads (`extra`: the intent, the row the form belongs to); anything else
 * is thrown on.
 *
 *     } catch (error) {
 *       return formErrorReply(error, submission, { intent })
 *     }
 */
export function formErrorReply<
	S extends Replyable,
	E extends Record<string, unknown> = Record<never, never>,
>(error: unknown, submission: S, extra?: E, hideFields?: string[]) {
	if (!(error instanceof FormError)) throw error
	return data(
		{ ...(extra as E), result: replyWithFormError(submission, error, hideFields) },
		{ status: error.status },
	)
}

/** For an action with no form of its own (a button in a table): back to `to` with the message as a toast. */
export function redirectOnFormError(error: unknown, to: string) {
	if (!(error instanceof FormError)) throw error
	return redirectWithError(to, error.message)
}

/** For a loader that shows a service's refusal on the page (no form to answer): its message. */
export function formErrorMessage(error: unknown) {
	if (!(error instanceof FormError)) throw error
	return error.message
}
