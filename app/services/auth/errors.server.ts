import { data } from 'react-router'
import type { AuthError } from '@supabase/supabase-js'

export type AuthFailure = {
	status: number
	field?: 'email' | 'password'
	message: string
}

const WEAK_REASONS: Record<string, string> = {
	length: 'Use at least 8 characters',
	characters: 'Use both letters and digits',
	pwned: 'This password is known from a data breach; choose another',
}

/** What an auth service error means for the person filling in the form. */
export function describeAuthError(error: AuthError): AuthFailure {
	const code = error.code ?? ''
	switch (code) {
		case 'invalid_credentials':
			return { status: 400, message: 'Invalid email or password.' }
		case 'email_not_confirmed':
			return {
				status: 400,
				field: 'email',
				message: 'Confirm your email address first: we sent you a link.',
			}
		case 'user_banned':
			return { status: 403, message: 'This account is suspended. Contact support.' }
		case 'email_exists':
		case 'user_already_exists':
			return {
				status: 400,
				field: 'email',
				message: 'An account with this email already exists. Sign in instead.',
			}
		case 'weak_password': {
			const reasons = (error as AuthError & { reasons?: string[] }).reasons ?? []
			const text = reasons.map((r) => WEAK_REASONS[r] ?? r).join('. ')
			return { status: 400, field: 'password', message: text || error.message }
		}
		case 'same_password':
			return {
				status: 400,
				field: 'password',
				message: 'Choose a password different from the current one.',
			}
		case 'over_request_rate_limit':
		case 'over_email_send_rate_limit':
			return { status: 429, message: 'Too many attempts. Wait a few minutes and try again.' }
		case 'insufficient_aal':
			// a password-only session of a user with two-factor (GoTrue: password and email need aal2)
			return {
				status: 403,
				message:
					'Confirm it is you with your authenticator app first: sign out, then sign in again with your code.',
			}
		case 'validation_failed':
			return { status: 400, field: 'email', message: 'Enter a valid email address' }
		case 'signup_disabled':
			return { status: 403, message: 'Sign-ups are closed.' }
		default:
			return {
				status: error.status && error.status >= 500 ? 503 : 400,
				message: 'Something went wrong. Try again in a moment.',
			}
	}
}

type Replyable = {
	reply(options?: {
		formErrors?: string[]
		fieldErrors?: Record<string, string[]>
		hideFields?: string[]
	}): unknown
}

/** The form's answer to an auth error: the message at its field (or above the form), with its status. */
export function authErrorReply<S extends Replyable>(
	submission: S,
	error: AuthError,
	options: { hideFields?: string[]; field?: 'email' | 'password' } = {},
) {
	const failure = describeAuthError(error)
	const field = options.field ?? failure.field
	const result = submission.reply({
		hideFields: options.hideFields ?? ['password'],
		...(field
			? { fieldErrors: { [field]: [failure.message] } }
			: { formErrors: [failure.message] }),
	}) as ReturnType<S['reply']>
	return data({ result }, { status: failure.status })
}
