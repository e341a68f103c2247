import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { singleton } from './utils/singleton.server.ts'

const bool = z
	.enum(['true', 'false', '1', '0', 'yes', 'no'])
	.transform((v) => v === 'true' || v === '1' || v === 'yes')

// CREDIT_PACKS: "credits:price_cents" pairs, e.g. "1000:1900,5000:7900".
const DEFAULT_CREDIT_PACKS = '1000:1900,5000:7900,20000:24900'
const creditPacks = z
	.string()
	.regex(
		/^\s*\d{1,9}:\d{2,9}\s*(,\s*\d{1,9}:\d{2,9}\s*)*$/,
		'must be credits:price_cents pairs, e.g. 1000:1900,5000:7900',
	)
	.transform((value) =>
		value.split(',').map((pair) => {
			const [credits, priceCents] = pair.trim().split(':').map(Number) as [number, number]
			return { credits, priceCents }
		}),
	)
	.refine((packs) => packs.every((p) => p.credits > 0 && p.credits <= 10_000_000), {
		message: 'each pack holds 1 to 10,000,000 credits',
	})
	.refine((packs) => packs.every((p) => p.priceCents >= 50), {
		message: 'each price is at least 50 cents (the smallest Stripe charge)',
	})
	.refine((packs) => new Set(packs.map((p) => p.credits)).size === packs.length, {
		message: 'pack sizes must differ',
	})

const EnvSchema = z
	.object({
		NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
		HOST: z.string().min(1).default('0.0.0.0'),
		PORT: z.coerce.number().int().min(0).max(65535).default(3000),
		APP_NAME: z.string().min(1).max(60).default('Leadsmith'),
		APP_URL: z.url({ protocol: /^https?$/ }).optional(),
		APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
		DATA_DIR: z.string().min(1).default('.data'),
		DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
		EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
		SUPABASE_URL: z.url({ protocol: /^https?$/ }).optional(),
		SUPABASE_ANON_KEY: z.string().min(1).optional(),
		SUPABASE_SERVICE_ROLE_KEY: z.string().min(1).optional(),
		SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
		MAIL_FROM: z.string().min(3).default('Leadsmith <no-reply@leadsmith.local>'),
		AUTH_AUTOCONFIRM: bool.optional(),
		// database: every request checks the token's session row (auth.sessions) and the
		// user's ban; token: the signed token only (a real Supabase whose database is not ours)
		AUTH_SESSION_CHECK: z.enum(['database', 'token']).default('database'),
		AUTH_RATE_LIMIT_IP: z.coerce.number().int().min(1).default(60),
		AUTH_RATE_LIMIT_EMAIL: z.coerce.number().int().min(1).default(10),
		AUTH_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
		// other origins of this deployment (comma-separated, e.g. https://app.example.com): emailed
		// links may send people there (redirect_to) and browsers there may call /auth/v1 (CORS)
		AUTH_ALLOWED_ORIGINS: z
			.string()
			.default('')
			.transform((value, ctx) => {
				const origins: string[] = []
				for (const item of value
					.split(',')
					.map((v) => v.trim())
					.filter(Boolean)) {
					const url = URL.canParse(item) ? new URL(item) : null
					if (!url || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/$/, '')) {
						ctx.addIssue({
							code: 'custom',
							message: `"${item}" is not an origin like https://app.example.com`,
						})
						return z.NEVER
					}
					origins.push(url.origin)
				}
				return origins
			}),
		// the password policy of the auth API (GoTrue's settings; the app's own forms ask for the
		// same by default: 8 characters with letters and digits). Sets of required characters are
		// separated by ':'; a lone ':' requires none.
		AUTH_PASSWORD_MIN_LENGTH: z.coerce.number().int().min(6).max(72).default(8),
		AUTH_PASSWORD_REQUIRED_CHARACTERS: z
			.string()
			.default('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789')
			.transform((value) => value.split(':').filter(Boolean)),
		// PUT /user changes the password only with a nonce from GET /reauthenticate (GoTrue's
		// GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION) once the session is 24 h old
		AUTH_SECURE_PASSWORD_CHANGE: bool.default(false),
		// an email change through the auth API is confirmed from the current address and the new one
		// (GoTrue's GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED); off: the new address's link alone
		AUTH_SECURE_EMAIL_CHANGE: bool.default(true),
		// a rotated refresh token may be presented again for this long (GoTrue's
		// GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL, 10 s)
		AUTH_REFRESH_TOKEN_REUSE_INTERVAL: z.coerce.number().int().min(0).max(3600).default(10),
		// team invitation mails (invites and resends) one account may send per hour
		TEAM_INVITATIONS_PER_HOUR: z.coerce.number().int().min(1).default(20),
		ADMIN_EMAIL: z.email().optional(),
		ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
		// platform admins and editors reach the admin area only after a TOTP code (aal2)
		ADMIN_REQUIRE_MFA: bool.default(false),
		BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
		// CSV uploads on /file-list (up to 1,000,000 rows): their own, larger limit
		UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).default(268_435_456),
		TRUST_PROXY: bool.default(false),
		// page loads worked on at once by this process, the rest waiting their turn; 0: no limit.
		// Unset: 4 with the embedded database, 8 with DATABASE_URL (decision 0049)
		PAGES_IN_PROGRESS: z.coerce.number().int().min(0).max(10_000).optional(),
		// URLs users set (EmailBison, OpenAI-compatible base URLs) may reach private and internal
		// addresses: for local development and the tests' fakes (docs/decisions/0024-threat-model.md)
		ALLOW_PRIVATE_URLS: bool.optional(),
		WORKERS: z.coerce.number().int().min(0).max(64).default(1),
		JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3600).default(30),
		JOB_MONITOR_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
		// SIGTERM/SIGINT: requests in flight get this long to finish (decision 0025)
		SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
		// db/index.server.ts reads these three itself (scripts use it without the config)
		DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(20),
		DB_JOB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
		DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
		LOG_LEVEL: z
			.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
			.default('info'),
		PAYMENTS: z.enum(['stripe', 'test']).optional(),
		STRIPE_SECRET_KEY: z
			.string()
			.regex(/^(sk|rk)_[A-Za-z0-9_]+$/, 'must be a Stripe secret key (sk_... or rk_...)')
			.optional(),
		STRIPE_WEBHOOK_SECRET: z
			.string()
			.regex(/^whsec_[A-Za-z0-9_]+$/, 'must be a Stripe webhook signing secret (whsec_...)')
			.optional(),
		STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
		CREDIT_PACKS: creditPacks.prefault(DEFAULT_CREDIT_PACKS),
		DEV_MAILBOX: bool.optional(),
		APIFY_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.apify.com'),
		APIFY_TOKEN: z.string().min(1).optional(),
		APIFY_APOLLO_ACTOR: z.string().min(1).default('code_crafter~apollo-io-scraper'),
		APIFY_APOLLO_INPUT: z
			.string()
			.default(
				'{"url":"{{url}}","totalRecords":{{count}},"getPersonalEmails":true,"getWorkEmails":true}',
			),
		APIFY_APOLLO_COMPANY_ACTOR: z.string().min(1).default('code_crafter~apollo-company-scraper'),
		// how long a 402 "no memory left on this token" (too many runs at once) is waited out
		APIFY_CAPACITY_RETRY_SECONDS: z.coerce.number().int().min(1).default(60),
		// EmailBison: leads attached to an active campaign show in it up to 5 minutes later (its
		// docs); the largest page of a campaign's leads asked for (an instance may page by 15)
		EMAILBISON_SYNC_DELAY_SECONDS: z.coerce.number().int().min(0).default(300),
		EMAILBISON_CAMPAIGN_LEADS_PER_PAGE: z.coerce.number().int().min(15).max(1000).default(100),
		APOLLO_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.apollo.io/api/v1'),
		APOLLO_API_KEY: z.string().min(1).optional(),
		// seconds a spent Apollo rate-limit window (minute, hour, day: its x-*-requests-left
		// headers) is waited out before asking again; its 429s carry no Retry-After
		APOLLO_WINDOW_WAIT_SECONDS: z
			.string()
			.regex(/^\s*\d+\s*,\s*\d+\s*,\s*\d+\s*$/, 'must be three numbers: minute,hour,day')
			.default('60,900,3600')
			.transform((v) => {
				const [minute, hour, day] = v.split(',').map(Number) as [number, number, number]
				return { minute, hour, day }
			}),
		CREDITS_PER_LEAD: z.coerce.number().int().min(0).default(1),
		CREDITS_PER_COMPANY: z.coerce.number().int().min(0).default(1),
		// Domains and inboxes (issue 7): resolvers for DNS checks ("ip" or "ip:port", comma separated;
		// unset: the system's), what the apex of a forwarded domain points at (an IP for an A record,
		// else a host name for an ALIAS/CNAME; default APP_URL's host) and the prices.
		DNS_SERVERS: z
			.string()
			.regex(
				/^\s*[0-9a-fA-F.:[\]]+\s*(,\s*[0-9a-fA-F.:[\]]+\s*)*$/,
				'must be IP addresses (optionally with :port), comma separated',
			)
			.transform((v) => v.split(',').map((s) => s.trim()))
			.optional(),
		FORWARDING_TARGET: z.string().min(1).optional(),
		DOMAIN_PRICE_CENTS: z.coerce.number().int().min(50).max(1_000_000).default(1500),
		INBOX_PRICE_CENTS: z.coerce.number().int().min(50).max(1_000_000).default(300),
		OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.openai.com/v1'),
		OPENAI_API_KEY: z.string().min(1).optional(),
		CREDITS_PER_ENRICHMENT: z.coerce.number().int().min(0).default(1),
		ENRICH_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(10),
		ENRICH_RATE_PER_SECOND: z.coerce.number().min(0.1).max(10000).default(20),
		// Email verification (issue 35, decision 0086): the provider credit-paid checks use, each
		// provider's API and platform key, the price of a definitive answer, how long an answer
		// is reused, checks in flight per job and requests per second per key (all processes)
		VERIFY_PROVIDER: z
			.enum(['millionverifier', 'zerobounce', 'reacher'])
			.default('millionverifier'),
		MILLIONVERIFIER_BASE_URL: z
			.url({ protocol: /^https?$/ })
			.default('https://api.millionverifier.com'),
		MILLIONVERIFIER_BULK_URL: z
			.url({ protocol: /^https?$/ })
			.default('https://bulkapi.millionverifier.com'),
		MILLIONVERIFIER_API_KEY: z.string().min(1).optional(),
		ZEROBOUNCE_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.zerobounce.net'),
		ZEROBOUNCE_BULK_URL: z.url({ protocol: /^https?$/ }).default('https://bulkapi.zerobounce.net'),
		ZEROBOUNCE_API_KEY: z.string().min(1).optional(),
		ZEROBOUNCE_BATCH_SIZE: z.coerce.number().int().min(1).max(200).default(100),
		REACHER_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.reacher.email'),
		REACHER_API_KEY: z.string().min(1).optional(),
		CREDITS_PER_VERIFICATION: z.coerce.number().int().min(0).default(1),
		VERIFY_CACHE_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
		VERIFY_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(40),
		MILLIONVERIFIER_RATE_PER_SECOND: z.coerce.number().min(0.1).max(10000).default(160),
		ZEROBOUNCE_BATCH_PER_MINUTE: z.coerce.number().min(1).max(10000).default(30),
		REACHER_RATE_PER_SECOND: z.coerce.number().min(0.1).max(10000).default(5),
		MILLIONVERIFIER_BULK_MIN: z.coerce.number().int().min(0).default(20000),
		// seconds MillionVerifier tries a mail server (its `timeout`, 2-60); we wait 10 s more
		MILLIONVERIFIER_TIMEOUT_SECONDS: z.coerce.number().int().min(2).max(60).default(10),
		// the public API (/api/v1): requests per token per minute (per process)
		API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(6000),
		// Analytics (docs/decisions/0009-client-rules-and-analytics.md): off without a key
		POSTHOG_KEY: z.string().min(1).optional(),
		POSTHOG_HOST: z.url({ protocol: /^https?$/ }).default('https://us.i.posthog.com'),
		IP_COUNTRY_URL: z.url({ protocol: /^https?$/ }).default('https://ipapi.co/json/'),
		BUILD_POLL_INTERVAL_MS: z.coerce.number().int().min(100).default(3_600_000),
		// Uploaded files in S3-compatible object storage instead of DATA_DIR/uploads, so web and
		// worker processes on different machines share them (decision 0036). S3_URL is the
		// short form: https://KEY:SECRET@endpoint/bucket[/prefix]?region=… (path-style).
		S3_URL: z.url({ protocol: /^https?$/ }).optional(),
		S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
		S3_BUCKET: z
			.string()
			.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
			.optional(),
		S3_REGION: z.string().min(1).optional(),
		S3_ACCESS_KEY_ID: z.string().min(1).optional(),
		S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
		S3_FORCE_PATH_STYLE: bool.optional(),
		S3_PREFIX: z
			.string()
			.regex(/^([A-Za-z0-9._-]+\/)*$/, 'must be folder names each ending in /, e.g. uploads/')
			.optional(),
	})
	.superRefine((env, ctx) => {
		const supabase = [env.SUPABASE_URL, env.SUPABASE_ANON_KEY, env.SUPABASE_SERVICE_ROLE_KEY]
		if (supabase.some(Boolean) && !supabase.every(Boolean)) {
			for (const key of [
				'SUPABASE_URL',
				'SUPABASE_ANON_KEY',
				'SUPABASE_SERVICE_ROLE_KEY',
			] as const) {
				if (!env[key])
					ctx.addIssue({
						code: 'custom',
						path: [key],
						message: 'is required when any SUPABASE_* variable is set',
					})
			}
		}
		if (env.STRIPE_SECRET_KEY && !env.STRIPE_WEBHOOK_SECRET)
			ctx.addIssue({
				code: 'custom',
				path: ['STRIPE_WEBHOOK_SECRET'],
				message: 'is required with STRIPE_SECRET_KEY',
			})
		if (env.PAYMENTS === 'stripe' && !env.STRIPE_SECRET_KEY)
			ctx.addIssue({
				code: 'custom',
				path: ['STRIPE_SECRET_KEY'],
				message: 'is required with PAYMENTS=stripe',
			})
		for (const issue of fileStorageIssues(env)) ctx.addIssue({ code: 'custom', ...issue })
		if (env.ADMIN_EMAIL && !env.ADMIN_PASSWORD)
			ctx.addIssue({
				code: 'custom',
				path: ['ADMIN_PASSWORD'],
				message: 'is required with ADMIN_EMAIL',
			})
	})

export type Env = z.infer<typeof EnvSchema>

/** Every variable the configuration reads (compose.yaml's are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape)

export type Config = Omit<
	Env,
	'APP_URL' | 'APP_SECRET' | 'AUTH_AUTOCONFIRM' | 'DEV_MAILBOX' | 'ALLOW_PRIVATE_URLS'
> & {
	APP_URL: string
	/** outbound requests to user-set URLs may reach internal addresses (default: only in development) */
	ALLOW_PRIVATE_URLS: boolean
	APP_SECRET: string
	AUTH_AUTOCONFIRM: boolean
	/** /dev/mailbox is served (see docs/decisions/0002-local-mailbox.md) */
	DEV_MAILBOX: boolean
	/** the auth service runs inside this process (no SUPABASE_URL) */
	embeddedAuth: boolean
	/** APP_URL is this machine (localhost, 127.0.0.1, ::1): a local install, not a public deployment */
	localInstall: boolean
	isProduction: boolean
	/** where uploaded files are kept: DATA_DIR/uploads, or an S3-compatible bucket */
	fileStorage: FileStorageConfig
}

export type FileStorageConfig =
	| { kind: 'local'; dir: string }
	| {
			kind: 's3'
			/** unset: AWS S3 itself */
			endpoint: string | undefined
			bucket: string
			region: string
			/** unset: the SDK's default chain (environment, instance or task role) */
			credentials: { accessKeyId: string; secretAccessKey: string } | undefined
			forcePathStyle: boolean
			/** key prefix inside the bucket, e.g. "uploads/" */
			prefix: string
	  }

const S3_PARTS = [
	'S3_ENDPOINT',
	'S3_BUCKET',
	'S3_REGION',
	'S3_ACCESS_KEY_ID',
	'S3_SECRET_ACCESS_KEY',
	'S3_FORCE_PATH_STYLE',
	'S3_PREFIX',
] as const

type S3Env = { S3_URL?: string } & Partial<Record<(typeof S3_PARTS)[number], unknown>>

function fileStorageIssues(env: S3Env): { path: string[]; message: string }[] {
	const parts = S3_PARTS.filter((key) => env[key] !== undefined)
	if (env.S3_URL) {
		const url = new URL(env.S3_URL)
		const issues: { path: string[]; message: string }[] = parts
			.filter((key) => key !== 'S3_PREFIX' && key !== 'S3_REGION')
			.map((key) => ({ path: [key], message: 'set S3_URL or this, not both' }))
		if (!url.pathname.split('/')[1])
			issues.push({
				path: ['S3_URL'],
				message: 'must name the bucket: https://KEY:SECRET@host/bucket',
			})
		if (Boolean(url.username) !== Boolean(url.password))
			issues.push({ path: ['S3_URL'], message: 'needs both the access key id and the secret' })
		return issues
	}
	if (parts.length === 0) return []
	const issues: { path: string[]; message: string }[] = []
	if (!env.S3_BUCKET)
		issues.push({ path: ['S3_BUCKET'], message: 'is required when any S3_* variable is set' })
	if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY))
		for (const key of ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const)
			if (!env[key])
				issues.push({ path: [key], message: 'is required with the other S3 access key variable' })
	return issues
}

function fileStorageConfig(env: Env): FileStorageConfig {
	if (env.S3_URL) {
		const url = new URL(env.S3_URL)
		const [, bucket = '', ...prefix] = url.pathname.split('/')
		const folder = prefix.filter(Boolean).map(decodeURIComponent).join('/')
		return {
			kind: 's3',
			endpoint: url.origin,
			bucket: decodeURIComponent(bucket),
			region: url.searchParams.get('region') ?? env.S3_REGION ?? 'us-east-1',
			credentials: url.username
				? {
						accessKeyId: decodeURIComponent(url.username),
						secretAccessKey: decodeURIComponent(url.password),
					}
				: undefined,
			forcePathStyle: true,
			prefix: folder ? `${folder}/` : (env.S3_PREFIX ?? 'uploads/'),
		}
	}
	if (!env.S3_BUCKET) return { kind: 'local', dir: path.resolve(env.DATA_DIR, 'uploads') }
	return {
		kind: 's3',
		endpoint: env.S3_ENDPOINT,
		bucket: env.S3_BUCKET,
		// R2 takes "auto"; AWS needs the bucket's region
		region: env.S3_REGION ?? 'us-east-1',
		credentials:
			env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
				? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
				: undefined,
		// MinIO and Supabase Storage want path-style addressing; AWS and R2 take either
		forcePathStyle: env.S3_FORCE_PATH_STYLE ?? Boolean(env.S3_ENDPOINT),
		prefix: env.S3_PREFIX ?? 'uploads/',
	}
}

export class ConfigError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Config {
	// Empty strings count as unset, as in most .env files.
	const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''))
	const parsed = EnvSchema.safeParse(cleaned)
	if (!parsed.success) {
		const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`)
		throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
	}
	const env = parsed.data
	const appUrl = (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '')
	const local = ['localhost', '127.0.0.1', '[::1]'].includes(new URL(appUrl).hostname)
	return {
		...env,
		APP_URL: appUrl,
		DEV_MAILBOX: env.DEV_MAILBOX ?? (!env.SMTP_URL && (env.NODE_ENV !== 'production' || local)),
		APP_SECRET: env.APP_SECRET ?? localSecret(env.DATA_DIR),
		AUTH_AUTOCONFIRM: env.AUTH_AUTOCONFIRM ?? !env.SMTP_URL,
		// off for `npm start` too: it listens on 0.0.0.0 and anyone who reaches it can sign up
		ALLOW_PRIVATE_URLS: env.ALLOW_PRIVATE_URLS ?? env.NODE_ENV === 'development',
		embeddedAuth: !env.SUPABASE_URL,
		localInstall: local,
		isProduction: env.NODE_ENV === 'production',
		fileStorage: fileStorageConfig(env),
	}
}

// Without APP_SECRET a secret is made once and kept in the data directory,
// so `npm start` works out of the box and sessions survive restarts.
function localSecret(dataDir: string) {
	const file = path.resolve(dataDir, 'app-secret')
	if (existsSync(file)) return readFileSync(file, 'utf8').trim()
	mkdirSync(path.dirname(file), { recursive: true })
	const secret = randomBytes(32).toString('base64url')
	writeFileSync(file, secret, { mode: 0o600 })
	return secret
}

export function getConfig(): Config {
	return singleton('config', () => parseEnv(process.env))
}

/** For entry points: the configuration, or a message naming what is wrong and exit code 1. */
export function getConfigOrExit(): Config {
	try {
		const config = getConfig()
		// Libraries read process.env.NODE_ENV themselves when they load (React picks its
		// production or development build by it): a bare `npm start` runs production builds, and
		// so does the test mode (browser tests try what users get; React's development build
		// also doubled the server's rendering time). Only development loads development builds.
		process.env.NODE_ENV = config.NODE_ENV === 'development' ? 'development' : 'production'
		process.env.APP_MODE = config.NODE_ENV
		return config
	} catch (error) {
		if (!(error instanceof ConfigError)) throw error
		console.error(error.message)
		process.exit(1)
	}
}
