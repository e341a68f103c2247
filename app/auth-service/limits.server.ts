import type { AuthContext } from './context.server.ts'
import { tooManyRequests } from './errors.server.ts'

// Which counters exist (all per AUTH_RATE_LIMIT_WINDOW_SECONDS):
// - ip:<action>:<ip>       every request of an action from one IP       (AUTH_RATE_LIMIT_IP)
// - mail:<email>           mails sent to one address, whatever the kind (AUTH_RATE_LIMIT_EMAIL)
// - pwfail:<email>:<ip>    failed password sign-ins for one address from one IP, with backoff
//                          (AUTH_RATE_LIMIT_EMAIL); never across IPs, so nobody can lock the
//                          owner out of their account from elsewhere (decision 0023)
// - verify:<email>         code verifications for one address           (AUTH_RATE_LIMIT_EMAIL)
// - mfa:<factor id>        TOTP code checks against one factor          (AUTH_RATE_LIMIT_EMAIL)

export type LimitedAction = 'token' | 'signup' | 'recover' | 'otp' | 'resend' | 'verify' | 'mfa'

const requestLimit = () => tooManyRequests('over_request_rate_limit', 'Request rate limit reached')

export async function limitIp(ctx: AuthContext, request: Request, action: LimitedAction) {
	const ip = ctx.clientIp(request)
	const ok = await ctx.limiter.hit(`ip:${action}:${ip}`, ctx.config.AUTH_RATE_LIMIT_IP, ctx.now())
	if (!ok) throw requestLimit()
}

/** Counts a mail to `email`; 429 over_email_send_rate_limit past the limit. */
export async function limitEmailSend(ctx: AuthContext, email: string) {
	const ok = await ctx.limiter.hit(`mail:${email}`, ctx.config.AUTH_RATE_LIMIT_EMAIL, ctx.now())
	if (!ok) throw tooManyRequests('over_email_send_rate_limit', 'Email rate limit exceeded')
}

export async function limitVerify(ctx: AuthContext, email: string) {
	const ok = await ctx.limiter.hit(`verify:${email}`, ctx.config.AUTH_RATE_LIMIT_EMAIL, ctx.now())
	if (!ok) throw requestLimit()
}

/** Failed sign-ins from one (email, IP) pair that go unpunished; then each waits twice as long. */
export const FREE_PASSWORD_FAILURES = 3

/**
 * Seconds the pair must wait after its last failure: none for the first few, then 1, 2, 4 …
 * (at most the window); at AUTH_RATE_LIMIT_EMAIL failures, until the window ends.
 */
export function passwordBackoffSeconds(failures: number, limit: number, windowSeconds: number) {
	if (failures >= limit) return Infinity
	if (failures < FREE_PASSWORD_FAILURES) return 0
	return Math.min(2 ** (failures - FREE_PASSWORD_FAILURES), windowSeconds)
}

const passwordFailureKey = (ctx: AuthContext, request: Request, email: string) =>
	`pwfail:${email}:${ctx.clientIp(request)}`

/**
 * 429 while this (email, IP) pair backs off after failed sign-ins, even with the right
 * password. Counted per pair, never per email alone: a fresh IP with the right password
 * always gets in (the per-IP request limit caps how many addresses one IP can try).
 */
export async function checkPasswordFailures(ctx: AuthContext, request: Request, email: string) {
	const now = ctx.now()
	const { hits, lastHitAt } = await ctx.limiter.state(passwordFailureKey(ctx, request, email), now)
	const wait = passwordBackoffSeconds(
		hits,
		ctx.config.AUTH_RATE_LIMIT_EMAIL,
		ctx.config.AUTH_RATE_LIMIT_WINDOW_SECONDS,
	)
	if (wait > 0 && lastHitAt && now.getTime() < lastHitAt.getTime() + wait * 1000)
		throw requestLimit()
}

export async function recordPasswordFailure(ctx: AuthContext, request: Request, email: string) {
	await ctx.limiter.hit(
		passwordFailureKey(ctx, request, email),
		ctx.config.AUTH_RATE_LIMIT_EMAIL,
		ctx.now(),
	)
}

export async function clearPasswordFailures(ctx: AuthContext, request: Request, email: string) {
	await ctx.limiter.reset(passwordFailureKey(ctx, request, email))
}
