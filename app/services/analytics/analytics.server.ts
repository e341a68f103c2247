import { sql } from 'kysely'
import type { PostHog } from 'posthog-node'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { singleton } from '../../utils/singleton.server.ts'
import {
	CONSENT_COOKIE,
	CONSENT_MAX_AGE_SECONDS,
	isValidDistinctId,
	type AnalyticsUser,
	type Consent,
} from './identity.ts'

export function analyticsEnabled() {
	return Boolean(getConfig().POSTHOG_KEY)
}

function readCookie(request: Request, name: string) {
	const header = request.headers.get('cookie') ?? ''
	for (const part of header.split(';')) {
		const [key, ...rest] = part.trim().split('=')
		if (key === name) return decodeURIComponent(rest.join('='))
	}
	return null
}

/** The visitor's analytics consent (cookie ls_consent), or null before they chose. */
export function readConsent(request: Request): Consent | null {
	const value = readCookie(request, CONSENT_COOKIE)
	return value === 'granted' || value === 'denied' ? value : null
}

export function consentCookie(choice: Consent) {
	const secure = getConfig().APP_URL.startsWith('https:') ? '; Secure' : ''
	return `${CONSENT_COOKIE}=${choice}; Max-Age=${CONSENT_MAX_AGE_SECONDS}; Path=/; SameSite=Lax${secure}`
}

const ANON_COOKIE = 'ls_aid'

/** The distinct id for a server-side page view: the user, else an anonymous id kept in a cookie. */
export function serverDistinctId(request: Request, userId: string | null) {
	if (userId) return { id: userId, setCookie: null }
	const existing = readCookie(request, ANON_COOKIE)
	if (existing && /^[0-9a-f-]{36}$/.test(existing)) return { id: existing, setCookie: null }
	const id = crypto.randomUUID()
	return {
		id,
		setCookie: `${ANON_COOKIE}=${id}; Max-Age=${CONSENT_MAX_AGE_SECONDS}; Path=/; SameSite=Lax; HttpOnly`,
	}
}

// loaded only where analytics is on (decision 0055)
const client = () =>
	singleton('posthog-node', async (): Promise<PostHog> => {
		const config = getConfig()
		const { PostHog } = await import('posthog-node')
		return new PostHog(config.POSTHOG_KEY!, {
			host: config.POSTHOG_HOST,
			flushAt: 1,
			flushInterval: 0,
		})
	})

/** A $pageview through posthog-node, for a client that runs no script. */
export async function captureServerPageview(event: {
	distinctId: string
	url: string
	page: string
	userAgent: string | null
}) {
	if (!analyticsEnabled() || !isValidDistinctId(event.distinctId)) return
	const posthog = await client()
	posthog.capture({
		distinctId: event.distinctId,
		event: '$pageview',
		properties: {
			$current_url: event.url,
			page: event.page,
			$raw_user_agent: event.userAgent ?? undefined,
			$lib_source: 'noscript',
		},
	})
	await posthog.flush()
}

const TIERS: Record<number, string> = { 1: 'starter', 2: 'unlimited', 3: 'starter', 4: 'unlimited' }

/** SPEC.md section 7's identify properties for the signed-in user. */
export async function analyticsUser(account: AccountContext): Promise<AnalyticsUser> {
	const accountId = account.accountId ?? account.user.id
	const { rows } = await sql<{
		created_at: Date | null
		last_sign_in_at: Date | null
		domain_count: number
		active_domain_count: number
	}>`
		select u.created_at, u.last_sign_in_at,
			(select count(*)::int from domains where user_id = ${accountId}) as domain_count,
			(select count(*)::int from domains where user_id = ${accountId} and status = 'active')
				as active_domain_count
		from auth.users u where u.id = ${account.user.id}
	`.execute(db)
	const row = rows[0]
	const lastLogin = row?.last_sign_in_at ?? null
	return {
		id: account.user.id,
		email: account.user.email,
		signup_date: row?.created_at ? new Date(row.created_at).toISOString() : null,
		last_login_date: lastLogin ? new Date(lastLogin).toISOString() : null,
		days_since_login: lastLogin
			? Math.floor((Date.now() - new Date(lastLogin).getTime()) / 86_400_000)
			: null,
		subscription_tier: account.isLTD ? 'lifetime' : (TIERS[account.activePlan] ?? 'none'),
		domain_count: row?.domain_count ?? 0,
		active_domain_count: row?.active_domain_count ?? 0,
	}
}
