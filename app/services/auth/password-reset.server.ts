import { createHmac } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { CLIENT_IP_HEADER } from '../../auth-service/service.server.ts'
import { getAuthEndpoint } from './endpoint.server.ts'

/** Where the mailed reset link lands: the token hash is verified there, in whatever browser. */
export const RESET_CONFIRM_PATH = '/auth/confirm?next=/reset-password'

/**
 * Mails a password-reset link and 6-digit code. Asked without PKCE on purpose (decision 0028):
 * a PKCE link only works in the browser whose cookie holds the code verifier, and people open
 * reset mails on their phone. The link carries a token hash that /auth/confirm verifies
 * server-side (Supabase's SSR recipe: its recovery mail template links to
 * `{{ .SiteURL }}/auth/confirm?token_hash={{ .TokenHash }}&type=recovery&next=/reset-password`).
 */
export async function sendPasswordReset(request: Request, email: string) {
	const endpoint = await getAuthEndpoint()
	const clientIp = request.headers.get(CLIENT_IP_HEADER)
	const supabase = createClient(endpoint.url, endpoint.anonKey, {
		auth: {
			flowType: 'implicit',
			persistSession: false,
			autoRefreshToken: false,
			detectSessionInUrl: false,
		},
		global: { fetch: endpoint.fetch, headers: clientIp ? { [CLIENT_IP_HEADER]: clientIp } : {} },
	})
	return supabase.auth.resetPasswordForEmail(email, {
		redirectTo: `${getConfig().APP_URL}${RESET_CONFIRM_PATH}`,
	})
}

/** A second reset request for the same address within this long sends nothing (decision 0056). */
export const RESET_RESEND_SECONDS = 60

/** The address as stored: keyed, so the table lists no address anyone typed. */
function emailKey(email: string) {
	return createHmac('sha256', getConfig().APP_SECRET)
		.update(`password-reset:${email.trim().toLowerCase()}`)
		.digest('base64url')
}

let claimsSinceSweep = 0

/**
 * Records a reset request for `email`, registered or not: false when the address asked less
 * than RESET_RESEND_SECONDS ago, so every address gets the same truthful "already sent".
 */
export async function claimResetRequest(email: string) {
	const key = emailKey(email)
	const claimed = await sql<{ email_key: string }>`
		insert into password_reset_requests (email_key, requested_at) values (${key}, now())
		on conflict (email_key) do update set requested_at = excluded.requested_at
		where password_reset_requests.requested_at
			<= now() - make_interval(secs => ${RESET_RESEND_SECONDS})
		returning email_key
	`.execute(db)
	if (++claimsSinceSweep >= 200) {
		claimsSinceSweep = 0
		await db
			.deleteFrom('password_reset_requests')
			.where('requested_at', '<', sql<Date>`now() - interval '1 hour'`)
			.execute()
	}
	return claimed.rows.length > 0
}

/** The request did not go out (a limit or an outage): a retry is not "already sent". */
export async function releaseResetRequest(email: string) {
	await db.deleteFrom('password_reset_requests').where('email_key', '=', emailKey(email)).execute()
}
