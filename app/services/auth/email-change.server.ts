import { AuthApiError, type AuthError } from '@supabase/supabase-js'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { CLIENT_IP_HEADER } from '../../auth-service/service.server.ts'
import { getAuthEndpoint } from './endpoint.server.ts'
import type { Supabase } from './session.server.ts'

/** Where the mailed links land: the token hash is verified there, in whatever browser. */
export const EMAIL_CHANGE_CONFIRM_PATH = '/auth/confirm?next=/settings'

/** GoTrue's answer to the first of the two links (secure email change), word for word. */
export const FIRST_LINK_ACCEPTED =
	'Confirmation link accepted. Please proceed to confirm link sent to the other email'

/** A pending email change as the settings page shows it. */
export type EmailChange = {
	newEmail: string
	/** the link mailed to the current address is still to be used (secure email change) */
	waitingForCurrent: boolean
	/** the link mailed to the new address is still to be used */
	waitingForNew: boolean
	/** both addresses confirm (false: the new address alone, AUTH_SECURE_EMAIL_CHANGE off) */
	bothAddresses: boolean
}

/**
 * The user's address and pending change, from Supabase's own columns (so a hosted Supabase
 * shows the same): email_change, email_change_token_current/new (cleared once used),
 * email_change_confirm_status (1 once the first of two links was used).
 */
export async function getEmailState(userId: string) {
	const row = await db
		.selectFrom('auth.users')
		.select([
			'email',
			'email_change',
			'email_change_confirm_status',
			'email_change_token_current',
			'email_change_token_new',
		])
		.where('id', '=', userId)
		.executeTakeFirst()
	if (!row) return { email: '', pending: null }
	const currentPending = Boolean(row.email_change_token_current)
	const newPending = Boolean(row.email_change_token_new)
	const firstUsed = row.email_change_confirm_status === 1
	const pending: EmailChange | null =
		row.email_change && (currentPending || newPending)
			? {
					newEmail: row.email_change,
					waitingForCurrent: currentPending,
					waitingForNew: newPending,
					bothAddresses: firstUsed || (currentPending && newPending),
				}
			: null
	return { email: row.email ?? '', pending }
}

/**
 * Asks the auth service to change the signed-in user's address (PUT /user). Asked without PKCE
 * on purpose, as the password reset (decision 0028): the two links are often opened on two
 * devices, and a PKCE link only completes in the browser holding the code verifier. The links
 * carry token hashes that /auth/confirm verifies server-side.
 */
export async function requestEmailChange(
	request: Request,
	supabase: Supabase,
	email: string,
): Promise<AuthError | null> {
	const { data } = await supabase.auth.getSession()
	const accessToken = data.session?.access_token
	if (!accessToken) return new AuthApiError('Auth session missing!', 401, 'session_not_found')
	const endpoint = await getAuthEndpoint()
	const clientIp = request.headers.get(CLIENT_IP_HEADER)
	const redirectTo = `${getConfig().APP_URL}${EMAIL_CHANGE_CONFIRM_PATH}`
	const response = await endpoint.fetch(
		`${endpoint.url}/auth/v1/user?redirect_to=${encodeURIComponent(redirectTo)}`,
		{
			method: 'PUT',
			headers: {
				apikey: endpoint.anonKey,
				Authorization: `Bearer ${accessToken}`,
				'Content-Type': 'application/json',
				...(clientIp ? { [CLIENT_IP_HEADER]: clientIp } : {}),
			},
			body: JSON.stringify({ email }),
		},
	)
	if (response.ok) return null
	// GoTrue's error body: {code: 400, error_code, msg}, or {code: 'x', message} in newer API versions
	const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
	const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined)
	return new AuthApiError(
		text(body.msg) ?? text(body.message) ?? response.statusText,
		response.status,
		text(body.error_code) ?? text(body.code) ?? 'unexpected_failure',
	)
}

/** The app's words for the first of the two confirmations (link or code). */
export const FIRST_OF_TWO =
	'That worked. To finish changing your email address, also confirm from the other address: open the link or enter the code we sent there.'

/**
 * Confirms the user's pending change with a code from one of the two mails. A code is bound to
 * the address it was mailed to (GoTrue checks `email` + `token`), so it is tried against each
 * address still waiting: the new one, then the current one.
 */
export async function confirmEmailChangeWithCode(
	supabase: Supabase,
	userId: string,
	code: string,
): Promise<'changed' | 'first-of-two' | 'wrong' | 'limited'> {
	const { email, pending } = await getEmailState(userId)
	if (!pending) return 'wrong'
	const addresses = [
		...(pending.waitingForNew ? [pending.newEmail] : []),
		...(pending.waitingForCurrent ? [email] : []),
	]
	for (const address of addresses) {
		const { data, error } = await supabase.auth.verifyOtp({
			email: address,
			token: code,
			type: 'email_change',
		})
		if (!error) return data.session ? 'changed' : 'first-of-two'
		if (error.status === 429) return 'limited'
	}
	return 'wrong'
}
