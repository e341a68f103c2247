/** SPEC.md section 5: identification rejects an empty id and the literal words distinct_id or distinctid. */
export function isValidDistinctId(id: unknown): id is string {
	if (typeof id !== 'string') return false
	const value = id.trim()
	if (!value) return false
	return !['distinct_id', 'distinctid'].includes(value.toLowerCase())
}

/** The name of a page for analytics: the route name, else the path, else the document title. */
export function pageName(routeId: string | undefined, path: string | undefined, title: string) {
	return routeId || path || title
}

export type AnalyticsUser = {
	id: string
	email: string
	signup_date: string | null
	last_login_date: string | null
	days_since_login: number | null
	subscription_tier: string
	domain_count: number
	active_domain_count: number
}

export type Consent = 'granted' | 'denied'
export const CONSENT_COOKIE = 'ls_consent'
/** SPEC.md section 9: the analytics cookie lasts 365 days. */
export const CONSENT_MAX_AGE_SECONDS = 365 * 24 * 60 * 60
