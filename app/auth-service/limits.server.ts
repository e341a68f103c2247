import type { AuthContext } from './context.server.ts'
import { tooManyRequests } from './errors.server.ts'

// Which counters exist (all per AUTH_RATE_LIMIT_WINDOW_SECONDS):
// - ip:<action>:<ip>       every request of an action from one IP       (AUTH_RATE_LIMIT_IP)
// - mail:<email>           mails sent to one address, whatever the kind (AUTH_RATE_LIMIT_EMAIL)
// - pwfail:<email>         failed password sign-ins for one address     (AUTH_RATE_LIMIT_EMAIL)
// - verify:<email>         code verifications for one address           (AUTH_RATE_LIMIT_EMAIL)

export type LimitedAction = 'token' | 'signup' | 'recover' | 'otp' | 'resend' | 'verify'

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

/** 429 once `email` has had too many failed password sign-ins in the window. */
export async function checkPasswordFailures(ctx: AuthContext, email: string) {
	const failures = await ctx.limiter.count(`pwfail:${email}`, ctx.now())
	if (failures >= ctx.config.AUTH_RATE_LIMIT_EMAIL) throw requestLimit()
}

export async function recordPasswordFailure(ctx: AuthContext, email: string) {
	await ctx.limiter.hit(`pwfail:${email}`, ctx.config.AUTH_RATE_LIMIT_EMAIL, ctx.now())
}

export async function clearPasswordFailures(ctx: AuthContext, email: string) {
	await ctx.limiter.reset(`pwfail:${email}`)
}
