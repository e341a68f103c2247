import type { EmailOtpType } from '@supabase/supabase-js'
import { redirect } from 'react-router'
import type { Route } from './+types/auth-confirm'
import { requestContext } from '../../context.server.ts'
import { RedirectToSchema } from '../../services/auth/schemas.ts'
import { FIRST_LINK_ACCEPTED, FIRST_OF_TWO } from '../../services/auth/email-change.server.ts'
import {
	redirectWithError,
	redirectWithInfo,
	redirectWithSuccess,
} from '../../utils/toast.server.ts'

const OTP_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email'] as const

/**
 * Where emailed links land: a PKCE `code` (same browser) or a `token_hash`
 * (works in any browser). Either way the user ends up signed in and sent on.
 * The first of an email change's two links signs nobody in: the auth service
 * answers GoTrue's message (no session; `?message=` on a PKCE redirect), shown
 * on the next page.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
	const url = new URL(request.url)
	const next = RedirectToSchema.parse(url.searchParams.get('next') ?? undefined) ?? '/'
	const { supabase } = context.get(requestContext)
	const code = url.searchParams.get('code')
	const tokenHash = url.searchParams.get('token_hash')
	const type = url.searchParams.get('type') as EmailOtpType | null
	// A reset link is only opened here, not used: the reset page asks before it spends the token,
	// so a mail scanner or a glance on another device leaves the link and the mailed code
	// working, and a user with two-factor is asked for the second factor in the browser that
	// continues (decision 0056).
	if (tokenHash && type === 'recovery' && next === '/reset-password')
		throw redirect(`/reset-password?${new URLSearchParams({ token_hash: tokenHash })}`)
	let ok = false
	let firstOfTwo = false
	if (code) {
		ok = !(await supabase.auth.exchangeCodeForSession(code)).error
	} else if (tokenHash && type && (OTP_TYPES as readonly string[]).includes(type)) {
		const { data, error } = await supabase.auth.verifyOtp({ token_hash: tokenHash, type })
		ok = !error
		firstOfTwo = ok && type === 'email_change' && !data.session
	} else if (url.searchParams.get('message') === FIRST_LINK_ACCEPTED) {
		// only GoTrue's own text: the query is anyone's to write
		ok = firstOfTwo = true
	}
	if (!ok) {
		const failed = url.searchParams.get('error_description')
		throw await redirectWithError(
			next === '/reset-password' ? '/forgot-password' : '/signin',
			failed ?? 'This link is invalid or has expired. Ask for a new one.',
		)
	}
	// in the app's words, not GoTrue's sentence
	if (firstOfTwo) throw await redirectWithInfo(next, FIRST_OF_TWO)
	throw await redirectWithSuccess(
		next,
		next === '/reset-password'
			? 'Choose your new password.'
			: type === 'email_change'
				? 'Email address changed.'
				: 'Email confirmed.',
	)
}
