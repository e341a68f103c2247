// The embedded Supabase-Auth-compatible service, served at /auth/v1 when SUPABASE_URL is not set.
// It implements the subset of supabase/auth that /work/shared/reference/supabase-auth.md lists, so
// @supabase/supabase-js and @supabase/ssr work against it unchanged.
import type { Config } from '../config.server.ts'
import type { Database } from '../../db/index.server.ts'
import type { Mailer } from '../services/mail/mailer.server.ts'
import {
	adminCreateUser,
	adminDeleteUser,
	adminGetUser,
	adminListUsers,
	adminUpdateUser,
	generateLink,
	invite,
} from './admin.server.ts'
import type { AuthContext, AuthSettings } from './context.server.ts'
import { otp, recover, resend } from './email-flows.server.ts'
import {
	adminDeleteFactor,
	adminListFactors,
	challengeFactor,
	enrollFactor,
	unenrollFactor,
	verifyFactor,
} from './mfa.server.ts'
import { AuthApiError, errorResponse } from './errors.server.ts'
import { json, readJsonBody, type Body } from './http.server.ts'
import { loadKeyRing } from './keys.server.ts'
import { createRateLimiter } from './rate-limit.server.ts'
import { signup } from './signup.server.ts'
import { token } from './token.server.ts'
import { getUser, logout, reauthenticate, updateUser } from './user.server.ts'
import { verifyGet, verifyPost } from './verify.server.ts'

export type AuthService = {
	/** Handles any Request whose path starts with /auth/v1/ (fetch API). Never throws: errors become proper responses. */
	fetch(request: Request): Promise<Response>
	/** JWT (ES256, role "anon") usable as the Supabase anon/publishable key */
	anonKey: string
	/** JWT (ES256, role "service_role") for admin endpoints */
	serviceRoleKey: string
}

export type AuthServiceOptions = {
	db: Database
	config: Config
	mailer: Mailer
	/** the service's clock (tests move it) */
	now?: () => Date
	/**
	 * The client's IP, for the per-IP rate limits. Default: with TRUST_PROXY, the first address of
	 * X-Forwarded-For; otherwise (and as a fallback) the `x-leadsmith-client-ip` header. The Express
	 * layer (app/server/app.server.ts) overwrites that header with req.ip on every request, so a
	 * client cannot choose it; in-process callers (server-side Supabase clients) must set it to the
	 * end user's IP.
	 */
	clientIp?: (request: Request) => string
	/** errors the service answers with 500, and failed mails (default: console.error) */
	log?: (message: string, error: unknown) => void
} & Partial<AuthSettings>

export const CLIENT_IP_HEADER = 'x-leadsmith-client-ip'
const PREFIX = '/auth/v1'

function defaultClientIp(config: Config) {
	return (request: Request) => {
		if (config.TRUST_PROXY) {
			const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
			if (forwarded) return forwarded
		}
		return request.headers.get(CLIENT_IP_HEADER)?.trim() || 'unknown'
	}
}

const TEN_YEARS = 10 * 365 * 24 * 3600

export async function createAuthService(options: AuthServiceOptions): Promise<AuthService> {
	const { db, config, mailer } = options
	const now = options.now ?? (() => new Date())
	const log = options.log ?? ((message, error) => console.error(`auth service: ${message}`, error))
	const settings: AuthSettings = {
		accessTokenLifetimeSeconds: options.accessTokenLifetimeSeconds ?? 3600,
		refreshTokenReuseIntervalSeconds:
			options.refreshTokenReuseIntervalSeconds ?? config.AUTH_REFRESH_TOKEN_REUSE_INTERVAL,
		otpLifetimeSeconds: options.otpLifetimeSeconds ?? 3600,
		flowStateLifetimeSeconds: options.flowStateLifetimeSeconds ?? 300,
		mailMinIntervalSeconds: options.mailMinIntervalSeconds ?? 60,
		bcryptCost: options.bcryptCost ?? 10,
	}
	const keys = await loadKeyRing(db, config.APP_SECRET)
	const ctx: AuthContext = {
		db,
		config,
		mailer: {
			async send(mail) {
				try {
					await mailer.send(mail)
				} catch (error) {
					log('sending mail failed', error)
					throw error
				}
			},
		},
		now,
		keys,
		limiter: createRateLimiter(db, config.AUTH_RATE_LIMIT_WINDOW_SECONDS),
		settings,
		issuer: `${config.APP_URL}${PREFIX}`,
		clientIp: options.clientIp ?? defaultClientIp(config),
	}

	const apiKey = (role: string) => {
		const iat = Math.floor(now().getTime() / 1000)
		return keys.sign({ iss: ctx.issuer, role, iat, exp: iat + TEN_YEARS })
	}
	const anonKey = await apiKey('anon')
	const serviceRoleKey = await apiKey('service_role')

	async function route(request: Request): Promise<Response> {
		const url = new URL(request.url)
		if (!url.pathname.startsWith(`${PREFIX}/`)) throw notFoundError()
		const path = url.pathname.slice(PREFIX.length).replace(/\/+$/, '') || '/'
		const method = request.method.toUpperCase()
		const body: Body =
			method === 'GET' || method === 'HEAD'
				? {}
				: await readJsonBody(request, config.BODY_LIMIT_BYTES)
		const allow = (...methods: string[]) => {
			if (!methods.includes(method))
				throw new AuthApiError(405, 'method_not_allowed', `Method ${method} is not allowed here`)
		}

		switch (path) {
			case '/signup':
				allow('POST')
				return signup(ctx, request, body)
			case '/token':
				allow('POST')
				return token(ctx, request, body)
			case '/user':
				allow('GET', 'PUT')
				return method === 'GET' ? getUser(ctx, request) : updateUser(ctx, request, body)
			case '/reauthenticate':
				allow('GET')
				return reauthenticate(ctx, request)
			case '/logout':
				allow('POST')
				return logout(ctx, request)
			case '/recover':
				allow('POST')
				return recover(ctx, request, body)
			case '/otp':
				allow('POST')
				return otp(ctx, request, body)
			case '/resend':
				allow('POST')
				return resend(ctx, request, body)
			case '/verify':
				allow('GET', 'POST')
				return method === 'GET' ? verifyGet(ctx, request) : verifyPost(ctx, request, body)
			case '/.well-known/jwks.json':
				allow('GET')
				return json(keys.jwks, { headers: { 'Cache-Control': 'public, max-age=600' } })
			case '/settings':
				allow('GET')
				return json(settingsJson(config))
			case '/health':
				allow('GET')
				return json({
					version: 'leadsmith',
					name: 'GoTrue',
					description: 'Leadsmith embedded auth',
				})
			case '/invite':
				allow('POST')
				return invite(ctx, request, body)
			case '/admin/users':
				allow('GET', 'POST')
				return method === 'GET' ? adminListUsers(ctx, request) : adminCreateUser(ctx, request, body)
			case '/admin/generate_link':
				allow('POST')
				return generateLink(ctx, request, body)
			case '/factors':
				allow('POST')
				return enrollFactor(ctx, request, body)
		}
		const factorPath = /^\/factors\/([^/]+)(?:\/(challenge|verify))?$/.exec(path)
		if (factorPath) {
			const id = decodeURIComponent(factorPath[1]!)
			if (factorPath[2] === 'challenge') {
				allow('POST')
				return challengeFactor(ctx, request, id)
			}
			if (factorPath[2] === 'verify') {
				allow('POST')
				return verifyFactor(ctx, request, id, body)
			}
			allow('DELETE')
			return unenrollFactor(ctx, request, id)
		}
		const adminFactorPath = /^\/admin\/users\/([^/]+)\/factors(?:\/([^/]+))?$/.exec(path)
		if (adminFactorPath) {
			const userId = decodeURIComponent(adminFactorPath[1]!)
			if (adminFactorPath[2]) {
				allow('DELETE')
				return adminDeleteFactor(ctx, request, userId, decodeURIComponent(adminFactorPath[2]))
			}
			allow('GET')
			return adminListFactors(ctx, request, userId)
		}
		const userPath = /^\/admin\/users\/([^/]+)$/.exec(path)
		if (userPath) {
			const id = decodeURIComponent(userPath[1]!)
			allow('GET', 'PUT', 'DELETE')
			if (method === 'GET') return adminGetUser(ctx, request, id)
			if (method === 'PUT') return adminUpdateUser(ctx, request, id, body)
			return adminDeleteUser(ctx, request, id, body)
		}
		throw notFoundError()
	}

	async function answer(request: Request) {
		try {
			return await route(request)
		} catch (error) {
			if (!(error instanceof AuthApiError) || error.status >= 500)
				log(`${request.method} ${new URL(request.url).pathname} failed`, error)
			return errorResponse(error, request)
		}
	}

	return {
		anonKey,
		serviceRoleKey,
		async fetch(request) {
			const origin = request.headers.get('origin')
			const allowed = origin !== null && config.AUTH_ALLOWED_ORIGINS.includes(origin)
			if (request.method === 'OPTIONS' && origin !== null)
				return preflight(request, allowed ? origin : null)
			const response = await answer(request)
			return allowed ? withCors(response, origin) : response
		},
	}
}

// CORS for browsers on the other origins of this deployment (AUTH_ALLOWED_ORIGINS), as GoTrue
// answers them: credentials allowed, its API headers readable. Other origins get no CORS headers,
// so browsers there cannot read answers.
const CORS_METHODS = 'GET, POST, PUT, PATCH, DELETE'
const CORS_EXPOSED = 'X-Total-Count, Link, X-Supabase-Api-Version, x-sb-error-code'
const CORS_MAX_AGE = '300'

function preflight(request: Request, origin: string | null) {
	const headers = new Headers({ Vary: 'Origin' })
	if (origin) {
		headers.set('Access-Control-Allow-Origin', origin)
		headers.set('Access-Control-Allow-Credentials', 'true')
		headers.set('Access-Control-Allow-Methods', CORS_METHODS)
		const asked = request.headers.get('access-control-request-headers')
		if (asked) headers.set('Access-Control-Allow-Headers', asked)
		headers.set('Access-Control-Max-Age', CORS_MAX_AGE)
	}
	return new Response(null, { status: 204, headers })
}

function withCors(response: Response, origin: string) {
	const headers = new Headers(response.headers)
	headers.set('Access-Control-Allow-Origin', origin)
	headers.set('Access-Control-Allow-Credentials', 'true')
	headers.set('Access-Control-Expose-Headers', CORS_EXPOSED)
	headers.append('Vary', 'Origin')
	return new Response(response.body, {
		status: response.status,
		statusText: response.statusText,
		headers,
	})
}

function notFoundError() {
	return new AuthApiError(404, 'not_found', 'Not Found')
}

const EXTERNAL_PROVIDERS = [
	'anonymous_users',
	'apple',
	'azure',
	'bitbucket',
	'discord',
	'facebook',
	'snapchat',
	'figma',
	'fly',
	'github',
	'gitlab',
	'google',
	'keycloak',
	'kakao',
	'linkedin',
	'linkedin_oidc',
	'notion',
	'spotify',
	'slack',
	'slack_oidc',
	'workos',
	'twitch',
	'twitter',
	'email',
	'phone',
	'zoom',
]

function settingsJson(config: Config) {
	return {
		external: Object.fromEntries(EXTERNAL_PROVIDERS.map((p) => [p, p === 'email'])),
		disable_signup: false,
		mailer_autoconfirm: config.AUTH_AUTOCONFIRM,
		phone_autoconfirm: false,
		sms_provider: '',
		saml_enabled: false,
		saml_private_key_next_configured: false,
		passkeys_enabled: false,
	}
}
