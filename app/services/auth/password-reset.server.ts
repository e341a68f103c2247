import { createClient } from '@supabase/supabase-js'
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
