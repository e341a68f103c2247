import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { getConfig } from '../../config.server.ts'
import { db } from '../../../db/index.server.ts'
import { createAuthService, type AuthService } from '../../auth-service/service.server.ts'
import { getMailer } from '../mail/mailer.server.ts'
import { singleton } from '../../utils/singleton.server.ts'
import { logger } from '../../utils/logger.server.ts'

export type AuthEndpoint = {
	url: string
	anonKey: string
	serviceRoleKey: string
	fetch: typeof fetch
}

/** The embedded auth service of this process (only when SUPABASE_URL is not set). */
export function getEmbeddedAuthService(): Promise<AuthService> {
	return singleton('auth-service', () => {
		const config = getConfig()
		return createAuthService({
			db,
			config,
			mailer: getMailer(),
			log: (message, error) => logger.error({ err: error }, message),
		})
	})
}

/**
 * Where the Supabase clients talk to: a real Supabase project, or the embedded
 * service, whose requests are handed to it in-process instead of over the network.
 */
export async function getAuthEndpoint(): Promise<AuthEndpoint> {
	const config = getConfig()
	if (!config.embeddedAuth) {
		return {
			url: config.SUPABASE_URL!,
			anonKey: config.SUPABASE_ANON_KEY!,
			serviceRoleKey: config.SUPABASE_SERVICE_ROLE_KEY!,
			fetch: globalThis.fetch,
		}
	}
	const service = await getEmbeddedAuthService()
	const prefix = `${config.APP_URL}/auth/v1/`
	const inProcessFetch: typeof fetch = async (input, init) => {
		const request = new Request(input, init)
		return request.url.startsWith(prefix) ? service.fetch(request) : fetch(request)
	}
	return {
		url: config.APP_URL,
		anonKey: service.anonKey,
		serviceRoleKey: service.serviceRoleKey,
		fetch: inProcessFetch,
	}
}

/** A service-role client for admin calls (creating users, bans). Never exposed to the browser. */
export async function getAuthAdmin(): Promise<SupabaseClient['auth']['admin']> {
	const endpoint = await getAuthEndpoint()
	const client = createClient(endpoint.url, endpoint.serviceRoleKey, {
		auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
		global: { fetch: endpoint.fetch },
	})
	return client.auth.admin
}
