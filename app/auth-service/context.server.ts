import type { Transaction } from 'kysely'
import type { Config } from '../config.server.ts'
import type { Database } from '../../db/index.server.ts'
import type { DB } from '../../db/schema.ts'
import type { Mailer } from '../services/mail/mailer.server.ts'
import type { KeyRing } from './keys.server.ts'
import type { RateLimiter } from './rate-limit.server.ts'

export type Executor = Database | Transaction<DB>

/** Tunables; the defaults are Supabase's. Tests shorten some of them. */
export type AuthSettings = {
	/** access-token lifetime (Supabase: 3600 s) */
	accessTokenLifetimeSeconds: number
	/** a rotated refresh token may be presented again for this long (Supabase: 10 s) */
	refreshTokenReuseIntervalSeconds: number
	/** how long emailed links and codes stay valid (Supabase hosted: 3600 s) */
	otpLifetimeSeconds: number
	/** how long a PKCE auth code may wait for its exchange once issued (Supabase: 300 s) */
	flowStateLifetimeSeconds: number
	/** minimum time between two mails of one kind to one user (Supabase: 60 s) */
	mailMinIntervalSeconds: number
	/** bcrypt cost factor (Supabase: 10) */
	bcryptCost: number
}

export type AuthContext = {
	db: Database
	config: Config
	mailer: Mailer
	now: () => Date
	keys: KeyRing
	limiter: RateLimiter
	settings: AuthSettings
	/** `iss` of access tokens: `${APP_URL}/auth/v1` */
	issuer: string
	clientIp(request: Request): string
}
