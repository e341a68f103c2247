import { safeRedirect as safeRedirectPath } from '../utils/safe-redirect.ts'
import { badRequest, weakPasswordError } from './errors.server.ts'

/** bcrypt reads at most 72 bytes */
export const PASSWORD_MAX_BYTES = 72

/**
 * GoTrue's password policy settings: a minimum length in characters and sets of characters of
 * which a password needs one each (AUTH_PASSWORD_REQUIRED_CHARACTERS, sets separated by ':').
 */
export type PasswordPolicy = {
	AUTH_PASSWORD_MIN_LENGTH: number
	AUTH_PASSWORD_REQUIRED_CHARACTERS: string[]
}

const EMAIL_LOCAL = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u
const EMAIL_LABEL = /^[\p{L}\p{N}]([\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u

export function isEmail(value: string) {
	const at = value.lastIndexOf('@')
	if (at <= 0 || at === value.length - 1) return false
	const local = value.slice(0, at)
	const labels = value.slice(at + 1).split('.')
	return (
		local.length <= 64 &&
		EMAIL_LOCAL.test(local) &&
		labels.length >= 2 &&
		labels.every((label) => EMAIL_LABEL.test(label)) &&
		!/^\d+$/.test(labels[labels.length - 1]!)
	)
}

/** Lower-cased email, or 400 validation_failed with Supabase's messages. */
export function validateEmail(value: unknown): string {
	const email = typeof value === 'string' ? value.trim() : ''
	if (!email) throw badRequest('validation_failed', 'An email address is required')
	if (email.length > 255) throw badRequest('validation_failed', 'An email address is too long')
	if (!isEmail(email))
		throw badRequest('validation_failed', 'Unable to validate email address: invalid format')
	return email.toLowerCase()
}

/** The weak-password reasons for `password` (empty when strong enough). */
export function passwordWeakness(
	password: string,
	policy: PasswordPolicy,
): { reasons: string[]; message: string } {
	const reasons: string[] = []
	const messages: string[] = []
	const minLength = policy.AUTH_PASSWORD_MIN_LENGTH
	const required = policy.AUTH_PASSWORD_REQUIRED_CHARACTERS
	if ([...password].length < minLength) {
		reasons.push('length')
		messages.push(`Password should be at least ${minLength} characters.`)
	}
	if (required.some((set) => ![...password].some((c) => set.includes(c)))) {
		reasons.push('characters')
		messages.push(`Password should contain at least one character of each: ${required.join(', ')}.`)
	}
	return { reasons, message: messages.join(' ') }
}

/** 400 when too long for bcrypt, 422 weak_password with reasons when too weak. */
export function checkPasswordStrength(password: string, policy: PasswordPolicy) {
	if (Buffer.byteLength(password) > PASSWORD_MAX_BYTES)
		throw badRequest(
			'validation_failed',
			`Password cannot be longer than ${PASSWORD_MAX_BYTES} characters`,
		)
	const { reasons, message } = passwordWeakness(password, policy)
	if (reasons.length > 0) throw weakPasswordError(message, reasons)
}

export type Pkce = { challenge: string; method: 's256' | 'plain' } | null

/** RFC 7636 parameters as auth-js sends them (`s256` or `plain`); null for the implicit flow. */
export function validatePkce(challenge: unknown, method: unknown): Pkce {
	const c = typeof challenge === 'string' ? challenge : ''
	const m = typeof method === 'string' ? method : ''
	if (!c && !m) return null
	if (!c || !m)
		throw badRequest(
			'validation_failed',
			'PKCE flow requires code_challenge_method and code_challenge',
		)
	if (c.length < 43 || c.length > 128)
		throw badRequest('validation_failed', 'code challenge has to be between 43 and 128 characters')
	if (!/^[a-zA-Z._~0-9-]+$/.test(c))
		throw badRequest(
			'validation_failed',
			'code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes',
		)
	const normalized = m.toLowerCase()
	if (normalized !== 's256' && normalized !== 'plain')
		throw badRequest('validation_failed', `unsupported code_challenge method "${m}"`)
	return { challenge: c, method: normalized }
}

/**
 * A redirect target on APP_URL's origin (a path, or an absolute URL on it; see
 * app/utils/safe-redirect.ts) or on one of AUTH_ALLOWED_ORIGINS (other origins of the same
 * deployment, as GoTrue's URI allow list); anything else falls back to APP_URL, so links in mails
 * never send people elsewhere.
 */
export function safeRedirect(
	candidate: unknown,
	appUrl: string,
	allowedOrigins: readonly string[] = [],
): string {
	if (typeof candidate === 'string' && allowedOrigins.length > 0) {
		try {
			const url = new URL(candidate)
			if (allowedOrigins.includes(url.origin) && !url.username && !url.password) return url.href
		} catch {
			// not an absolute URL: a path on APP_URL, checked below
		}
	}
	const path = safeRedirectPath(candidate, { origin: appUrl, fallback: '' })
	return path ? new URL(path, appUrl).href : appUrl
}

const DURATION_UNITS: Record<string, number> = {
	ns: 1e-6,
	us: 1e-3,
	µs: 1e-3,
	μs: 1e-3,
	ms: 1,
	s: 1000,
	m: 60_000,
	h: 3_600_000,
}

/** Go's time.ParseDuration ("24h", "1h30m", "90s"), in milliseconds; "none" is 0. */
export function parseBanDuration(value: string): number {
	if (value === 'none') return 0
	const invalid = () =>
		badRequest(
			'validation_failed',
			`invalid format for ban duration: time: invalid duration "${value}"`,
		)
	let rest = value
	let sign = 1
	if (rest.startsWith('-') || rest.startsWith('+')) {
		sign = rest.startsWith('-') ? -1 : 1
		rest = rest.slice(1)
	}
	if (rest === '0') return 0
	if (!rest) throw invalid()
	let total = 0
	const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/
	while (rest) {
		const match = part.exec(rest)
		if (!match) throw invalid()
		total += Number(match[1]) * DURATION_UNITS[match[2]!]!
		rest = rest.slice(match[0].length)
	}
	return sign * total
}

/** E.164-ish phone numbers as Supabase stores them: digits only, 8 to 15 of them. */
export function validatePhone(value: unknown): string {
	const phone = typeof value === 'string' ? value.replace(/[\s()+-]/g, '') : ''
	if (!/^[1-9]\d{7,14}$/.test(phone))
		throw badRequest('validation_failed', 'Invalid phone number format (E.164 required)')
	return phone
}
