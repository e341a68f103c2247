import bcrypt from 'bcrypt'
import type { AuthContext } from './context.server.ts'
import { AuthApiError, badRequest, forbidden, unprocessable } from './errors.server.ts'
import { json, objectParam, str, type Body } from './http.server.ts'
import { createFlowState, sendEmailChangeMails } from './mails.server.ts'
import { authenticate } from './sessions.server.ts'
import {
	findUserByEmail,
	findUserById,
	mergeMetadata,
	userJson,
	type LoadedUser,
} from './users.server.ts'
import { generateOtp, safeEqual, tokenHash } from './crypto.server.ts'
import { renderMail } from './emails.server.ts'
import { limitEmailSend, limitIp } from './limits.server.ts'
import {
	checkPasswordStrength,
	safeRedirect,
	validateEmail,
	validatePkce,
} from './validation.server.ts'

/** GET /user */
export async function getUser(ctx: AuthContext, request: Request) {
	const { user, claims } = await authenticate(ctx, request)
	if (claims.aud !== 'authenticated')
		throw badRequest('validation_failed', "Token audience doesn't match request audience")
	return json(userJson(user))
}

/**
 * PUT /user: `data` (merged into user_metadata), `password` (other sessions end), `email` (a
 * confirmation link goes to the new address and, with AUTH_SECURE_EMAIL_CHANGE, another to the
 * current one; the change applies when both are used).
 */
export async function updateUser(ctx: AuthContext, request: Request, body: Body) {
	const { user, sessionId, aal } = await authenticate(ctx, request)
	const email =
		body.email === undefined || body.email === '' ? undefined : validateEmail(body.email)
	const password = typeof body.password === 'string' ? body.password : undefined
	const data = objectParam(body.data, 'data')
	if (body.app_metadata !== undefined && body.app_metadata !== null)
		throw forbidden('not_admin', 'Updating app_metadata requires admin privileges')
	if (str(body.phone) && str(body.phone) !== (user.phone ?? ''))
		throw badRequest('phone_provider_disabled', 'Phone logins are disabled')
	// GoTrue's rule (api/user.go): a password alone must not take over an account with two-factor
	const changingSecret = Boolean(password) || (email !== undefined && email !== user.email)
	if (changingSecret && aal !== 'aal2' && user.factors?.some((f) => f.status === 'verified'))
		throw new AuthApiError(
			401,
			'insufficient_aal',
			'AAL2 session is required to update email or password when MFA is enabled.',
		)
	if (password !== undefined) checkPasswordStrength(password, ctx.config)
	const pkce = validatePkce(body.code_challenge, body.code_challenge_method)
	const changingEmail = email !== undefined && email !== user.email
	if (changingEmail) {
		const taken = await findUserByEmail(ctx.db, email)
		if (taken && taken.id !== user.id)
			throw unprocessable(
				'email_exists',
				'A user with this email address has already been registered',
			)
	}
	let passwordHash: string | undefined
	if (password) await checkReauthentication(ctx, user, sessionId, str(body.nonce))
	if (password) {
		if (user.encrypted_password && (await bcrypt.compare(password, user.encrypted_password)))
			throw unprocessable(
				'same_password',
				'New password should be different from the old password.',
			)
		passwordHash = await bcrypt.hash(password, ctx.settings.bcryptCost)
	}

	await ctx.db.transaction().execute(async (trx) => {
		const now = ctx.now()
		if (passwordHash) {
			// A new password: pending links no longer count, and other sessions end.
			await trx
				.updateTable('auth.users')
				.set({
					encrypted_password: passwordHash,
					confirmation_token: '',
					recovery_token: '',
					email_change_token_new: '',
					email_change_token_current: '',
					email_change_confirm_status: 0,
					reauthentication_token: '',
					reauthentication_sent_at: null,
					updated_at: now,
				})
				.where('id', '=', user.id)
				.execute()
			let others = trx.deleteFrom('auth.sessions').where('user_id', '=', user.id)
			if (sessionId) others = others.where('id', '!=', sessionId)
			await others.execute()
		}
		if (data) {
			await trx
				.updateTable('auth.users')
				.set({
					raw_user_meta_data: JSON.stringify(mergeMetadata(user.raw_user_meta_data, data)),
					updated_at: now,
				})
				.where('id', '=', user.id)
				.execute()
		}
		if (changingEmail && pkce) await createFlowState(ctx, trx, user.id, pkce, 'email_change')
	})
	if (changingEmail) {
		const redirectTo = safeRedirect(
			new URL(request.url).searchParams.get('redirect_to'),
			ctx.config.APP_URL,
			ctx.config.AUTH_ALLOWED_ORIGINS,
		)
		await sendEmailChangeMails(ctx, user.id, { redirectTo, pkce: Boolean(pkce), newEmail: email })
	}
	return json(userJson((await findUserById(ctx.db, user.id))!))
}

/** Sessions younger than this change the password without a nonce (GoTrue: 24 h). */
const RECENT_SIGN_IN_MS = 24 * 3600 * 1000

/**
 * With AUTH_SECURE_PASSWORD_CHANGE, a password change from a session signed in more than 24 h
 * ago needs the nonce GET /reauthenticate mailed (GoTrue's rule and error codes).
 */
async function checkReauthentication(
	ctx: AuthContext,
	user: LoadedUser,
	sessionId: string | null,
	nonce: string,
) {
	if (!ctx.config.AUTH_SECURE_PASSWORD_CHANGE) return
	const session = sessionId
		? await ctx.db
				.selectFrom('auth.sessions')
				.select('created_at')
				.where('id', '=', sessionId)
				.executeTakeFirst()
		: undefined
	const now = ctx.now().getTime()
	if (session?.created_at && now - session.created_at.getTime() <= RECENT_SIGN_IN_MS) return
	if (!nonce)
		throw badRequest('reauthentication_needed', 'Password update requires reauthentication')
	if (!user.reauthentication_token || !user.reauthentication_sent_at)
		throw unprocessable('reauthentication_not_valid', 'Requires reauthentication')
	const expired =
		now > user.reauthentication_sent_at.getTime() + ctx.settings.otpLifetimeSeconds * 1000
	if (expired || !safeEqual(tokenHash(user.email ?? '', nonce), user.reauthentication_token))
		throw forbidden('otp_expired', 'Token has expired or is invalid')
}

/** GET /reauthenticate: mails the signed-in user a nonce for a password change. */
export async function reauthenticate(ctx: AuthContext, request: Request) {
	const { user } = await authenticate(ctx, request)
	if (!user.email)
		throw badRequest('validation_failed', 'Reauthentication requires the user to have an email')
	await limitIp(ctx, request, 'otp')
	await limitEmailSend(ctx, user.email)
	const nonce = generateOtp()
	await ctx.db
		.updateTable('auth.users')
		.set({
			reauthentication_token: tokenHash(user.email, nonce),
			reauthentication_sent_at: ctx.now(),
		})
		.where('id', '=', user.id)
		.execute()
	await ctx.mailer.send(
		renderMail('reauthentication', {
			appName: ctx.config.APP_NAME,
			to: user.email,
			otp: nonce,
		}),
	)
	return json({})
}

/** POST /logout?scope=global|local|others: 204. */
export async function logout(ctx: AuthContext, request: Request) {
	const scope = new URL(request.url).searchParams.get('scope') ?? ''
	if (!['', 'global', 'local', 'others'].includes(scope))
		throw badRequest('validation_failed', `Unsupported logout scope "${scope}"`)
	const { user, sessionId } = await authenticate(ctx, request)
	let query = ctx.db.deleteFrom('auth.sessions').where('user_id', '=', user.id)
	if (sessionId && scope === 'local') query = query.where('id', '=', sessionId)
	else if (sessionId && scope === 'others') query = query.where('id', '!=', sessionId)
	await query.execute()
	return new Response(null, { status: 204 })
}
