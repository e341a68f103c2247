// Every redirect whose target comes from outside (a query parameter, a form field, a link in
// a mail) goes through safeRedirect: it must stay on this app's origin, and it must be
// something a Location header can carry.

/** A stand-in origin to resolve paths against; only its identity matters. */
const BASE = 'http://app.invalid'

export type SafeRedirectOptions = {
	/** what to send people to when the target is unusable (default '/') */
	fallback?: string
	/** the app's origin (APP_URL's): absolute URLs on it are accepted, as their path */
	origin?: string
}

/**
 * The target as a path on this app's origin ("/lists/1?tab=a#x"), read the way browsers read
 * a Location header; anything that could lead elsewhere or that a header cannot carry gives
 * the fallback. The result is already percent-encoded, so it is safe in a header.
 */
export function safeRedirect(target: unknown, options: SafeRedirectOptions = {}): string {
	const fallback = options.fallback ?? '/'
	if (typeof target !== 'string' || target === '') return fallback
	// Browsers drop tabs and newlines inside URLs ("/\t/evil.com" is "//evil.com"), and a
	// header cannot carry control characters at all: refuse them outright.
	// eslint-disable-next-line no-control-regex
	if (/[\u0000-\u001f\u007f]/.test(target)) return fallback
	let candidate = target
	if (!candidate.startsWith('/')) {
		// Only an absolute URL on our own origin may name its scheme ("http:evil.com" may not).
		if (!options.origin || !/^https?:\/\//i.test(candidate)) return fallback
		let absolute: URL
		try {
			absolute = new URL(candidate)
		} catch {
			return fallback
		}
		if (absolute.origin !== new URL(options.origin).origin) return fallback
		candidate = absolute.pathname + absolute.search + absolute.hash
	}
	let url: URL
	try {
		url = new URL(candidate, BASE)
	} catch {
		return fallback
	}
	// "//evil.com", "/\evil.com" and the like name another host.
	if (url.origin !== BASE) return fallback
	const path = url.pathname + url.search + url.hash
	// "/.//evil.com" resolves to the path "//evil.com", which a browser would read as a host;
	// "/%2F/evil.com" and "/%5Cevil.com" turn into one when a proxy or a person decodes them.
	if (/^\/(\/|\\|%2f|%5c)/i.test(path)) return fallback
	return path
}
