import { randomUUID } from 'node:crypto'
import type { AuthContext, Executor } from './context.server.ts'
import { generateOtp, tokenHash } from './crypto.server.ts'
import { internal, tooManyRequests } from './errors.server.ts'
import { renderMail } from './emails.server.ts'
import type { AuthMethod } from './sessions.server.ts'
import { findUserById, type UserRow } from './users.server.ts'
import type { Pkce } from './validation.server.ts'

export type LinkType = 'signup' | 'invite' | 'magiclink' | 'recovery' | 'email_change'

/**
 * `${APP_URL}/auth/v1/verify?token=...&type=...&redirect_to=...`, as Supabase's templates. A
 * link without PKCE whose redirect_to is the app's own /auth/confirm goes straight there with
 * `token_hash` and `type`, as Supabase's SSR email templates do: the app verifies it
 * server-side, so it works in any browser (decision 0028).
 */
export function actionLink(ctx: AuthContext, token: string, type: LinkType, redirectTo: string) {
	const target = new URL(redirectTo, ctx.config.APP_URL)
	if (
		!token.startsWith('pkce_') &&
		target.origin === new URL(ctx.config.APP_URL).origin &&
		target.pathname === '/auth/confirm'
	) {
		target.searchParams.set('token_hash', token)
		target.searchParams.set('type', type)
		return target.toString()
	}
	const query = `token=${encodeURIComponent(token)}&type=${type}&redirect_to=${encodeURIComponent(redirectTo)}`
	return `${ctx.config.APP_URL}/auth/v1/verify?${query}`
}

/** The PKCE flow an emailed link belongs to (auth code handed out by GET /verify). */
export async function createFlowState(
	ctx: AuthContext,
	db: Executor,
	userId: string,
	pkce: NonNullable<Pkce>,
	method: AuthMethod,
) {
	const now = ctx.now()
	// Flows of this user that can no longer complete are dropped on the way.
	const stale = Math.max(ctx.settings.otpLifetimeSeconds, 24 * 3600) * 1000
	await db
		.deleteFrom('auth.flow_state')
		.where('user_id', '=', userId)
		.where('created_at', '<', new Date(now.getTime() - stale))
		.execute()
	await db
		.insertInto('auth.flow_state')
		.values({
			id: randomUUID(),
			user_id: userId,
			auth_code: randomUUID(),
			code_challenge_method: pkce.method,
			code_challenge: pkce.challenge,
			provider_type: method === 'email/signup' ? 'email' : method,
			authentication_method: method,
			created_at: now,
			updated_at: now,
		})
		.execute()
}

const SENT_AT = {
	signup: 'confirmation_sent_at',
	invite: 'confirmation_sent_at',
	magiclink: 'recovery_sent_at',
	recovery: 'recovery_sent_at',
	email_change: 'email_change_sent_at',
} as const

const TOKEN = {
	signup: 'confirmation_token',
	invite: 'confirmation_token',
	magiclink: 'recovery_token',
	recovery: 'recovery_token',
	email_change: 'email_change_token_new',
} as const

/** 429 when a mail of this kind went to this user less than mailMinIntervalSeconds ago. */
function checkFrequency(ctx: AuthContext, sentAt: Date | null) {
	if (!sentAt) return
	const wait = sentAt.getTime() + ctx.settings.mailMinIntervalSeconds * 1000 - ctx.now().getTime()
	if (wait > 0)
		throw tooManyRequests(
			'over_email_send_rate_limit',
			`For security purposes, you can only request this after ${Math.ceil(wait / 1000)} seconds.`,
		)
}

/**
 * Stores a fresh one-time token of `type` on the user and mails its link and code. The user row
 * is locked meanwhile, and a failed send rolls the token back. PKCE tokens carry the `pkce_`
 * prefix, so GET /verify answers with `?code=`. (An email change sends two mails:
 * sendEmailChangeMails.)
 */
export async function sendLinkMail(
	ctx: AuthContext,
	userId: string,
	type: Exclude<LinkType, 'email_change'>,
	options: { redirectTo: string; pkce: boolean },
) {
	await ctx.db.transaction().execute(async (trx) => {
		const user = await findUserById(trx, userId, { forUpdate: true })
		if (!user) throw internal('Database error finding user')
		if (type !== 'invite') checkFrequency(ctx, user[SENT_AT[type]])
		const now = ctx.now()
		const to = user.email!
		const otp = generateOtp()
		const token = linkToken(to, otp, options.pkce)
		await trx
			.updateTable('auth.users')
			.set({
				[TOKEN[type]]: token,
				[SENT_AT[type]]: now,
				...(type === 'invite' ? { invited_at: now } : {}),
			})
			.where('id', '=', user.id)
			.execute()
		const mail = renderMail(type, {
			appName: ctx.config.APP_NAME,
			to,
			link: actionLink(ctx, token, type, options.redirectTo),
			otp,
			expiresInSeconds: ctx.settings.otpLifetimeSeconds,
		})
		try {
			await ctx.mailer.send(mail)
		} catch {
			throw internal(
				`Error sending ${type === 'signup' ? 'confirmation' : type.replace('_', ' ')} email`,
			)
		}
	})
}

function linkToken(address: string, otp: string, pkce: boolean) {
	const hash = tokenHash(address, otp)
	return pkce ? `pkce_${hash}` : hash
}

/**
 * An email change (GoTrue's sendEmailChange): a link and code to the new address and, with
 * AUTH_SECURE_EMAIL_CHANGE, another to the current one; the change applies once both are used
 * (verify.server.ts). Any earlier pending change is replaced, its links no longer count. The
 * user row is locked meanwhile, and a failed send rolls the tokens back.
 */
export async function sendEmailChangeMails(
	ctx: AuthContext,
	userId: string,
	options: { redirectTo: string; pkce: boolean; newEmail: string },
) {
	await ctx.db.transaction().execute(async (trx) => {
		const user = await findUserById(trx, userId, { forUpdate: true })
		if (!user) throw internal('Database error finding user')
		checkFrequency(ctx, user.email_change_sent_at)
		const newEmail = options.newEmail
		const current = ctx.config.AUTH_SECURE_EMAIL_CHANGE && user.email ? user.email : null
		const otpNew = generateOtp()
		const otpCurrent = current ? generateOtp() : null
		const tokenNew = linkToken(newEmail, otpNew, options.pkce)
		const tokenCurrent = current && otpCurrent ? linkToken(current, otpCurrent, options.pkce) : ''
		await trx
			.updateTable('auth.users')
			.set({
				email_change: newEmail,
				email_change_token_new: tokenNew,
				email_change_token_current: tokenCurrent,
				email_change_confirm_status: 0,
				email_change_sent_at: ctx.now(),
			})
			.where('id', '=', user.id)
			.execute()
		const common = {
			appName: ctx.config.APP_NAME,
			oldEmail: user.email ?? undefined,
			newEmail,
			bothAddresses: Boolean(current),
			expiresInSeconds: ctx.settings.otpLifetimeSeconds,
		}
		const mails = [
			renderMail('email_change_new', {
				...common,
				to: newEmail,
				link: actionLink(ctx, tokenNew, 'email_change', options.redirectTo),
				otp: otpNew,
			}),
		]
		if (current && otpCurrent)
			mails.push(
				renderMail('email_change_current', {
					...common,
					to: current,
					link: actionLink(ctx, tokenCurrent, 'email_change', options.redirectTo),
					otp: otpCurrent,
				}),
			)
		try {
			for (const mail of mails) await ctx.mailer.send(mail)
		} catch {
			throw internal('Error sending email change email')
		}
	})
}

/** After an email change: tell the old address (best effort). */
export async function sendEmailChangedNotice(ctx: AuthContext, user: UserRow, oldEmail: string) {
	try {
		await ctx.mailer.send(
			renderMail('email_changed', {
				appName: ctx.config.APP_NAME,
				to: oldEmail,
				oldEmail,
				newEmail: user.email ?? '',
			}),
		)
	} catch {
		// already logged by the service's mailer; the change itself is done
	}
}

/**
 * Sign-up with an address that already has a confirmed account (email confirmation on): the
 * answer looks like a new sign-up, and the owner hears of it instead. At most one notice per
 * mailMinIntervalSeconds, refused with the same 429 a new address gets when signing up twice.
 */
export async function sendAccountExistsNotice(ctx: AuthContext, user: UserRow) {
	const key = `notice:account_exists:${user.id}`
	const { lastHitAt } = await ctx.limiter.state(key, ctx.now())
	checkFrequency(ctx, lastHitAt)
	await ctx.limiter.hit(key, Number.MAX_SAFE_INTEGER, ctx.now())
	try {
		await ctx.mailer.send(
			renderMail('account_exists', {
				appName: ctx.config.APP_NAME,
				to: user.email ?? '',
				link: ctx.config.APP_URL,
			}),
		)
	} catch {
		// already logged by the service's mailer; the answer must not differ
	}
}
