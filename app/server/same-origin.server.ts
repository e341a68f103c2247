import type { Request as ExpressRequest, RequestHandler } from 'express'

// Cross-site request forgery: a page elsewhere cannot make a signed-in browser change
// anything here (docs/decisions/0022-http-hardening.md).

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Endpoints for machines, which prove who they are otherwise and get no browser cookies. */
export function isMachineEndpoint(path: string) {
	// Stripe signs its webhook; the auth API (supabase-js) takes an apikey and a bearer token.
	// The public API takes bearer tokens only, never the session cookie.
	return path === '/stripe/webhook' || path.startsWith('/auth/v1/') || path.startsWith('/api/v1/')
}

/**
 * Refuses (403) a request that changes something when the browser says it comes from a page
 * on another origin: Origin, or Referer without it (`Origin: null` is another origin). The
 * app's origin is APP_URL's, and behind a trusted proxy also the one it forwards
 * (X-Forwarded-Proto and -Host). No Origin and no Referer is not a browser: let through.
 */
export function sameOriginOnly(options: { appUrl: string; trustProxy: boolean }): RequestHandler {
	const appOrigin = new URL(options.appUrl).origin
	return (req, res, next) => {
		if (READS.has(req.method) || isMachineEndpoint(req.path)) {
			next()
			return
		}
		const origin = claimedOrigin(req)
		if (
			origin === null ||
			origin === appOrigin ||
			(options.trustProxy && origin === `${req.protocol}://${req.host}`)
		) {
			next()
			return
		}
		// Connection: close, so the body this request may still be sending is not read.
		res
			.status(403)
			.set('Connection', 'close')
			.type('text/plain')
			.send('Forbidden: this request came from another site.')
	}
}

/** The origin the browser names, 'invalid' when it names one we cannot read, null when none. */
function claimedOrigin(req: ExpressRequest): string | null {
	const origin = req.headers.origin
	if (origin !== undefined) return origin.toLowerCase()
	const referer = req.headers.referer
	if (referer === undefined) return null
	try {
		return new URL(referer).origin
	} catch {
		return 'invalid'
	}
}
