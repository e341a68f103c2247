import bcrypt from 'bcrypt'
import type { AuthContext } from './context.server.ts'
import { generatePassword } from './crypto.server.ts'
import { badRequest, unprocessable } from './errors.server.ts'
import { json, objectParam, str, type Body } from './http.server.ts'
import { limitEmailSend, limitIp } from './limits.server.ts'
import { createFlowState, sendEmailChangeMails, sendLinkMail } from './mails.server.ts'
import { isUniqueViolation } from './signup.server.ts'
import { findUserByEmail, insertEmailUser } from './users.server.ts'
import { safeRedirect, validateEmail, validatePkce } from './validation.server.ts'

function redirectParam(ctx: AuthContext, request: Request) {
	return safeRedirect(
		new URL(request.url).searchParams.get('redirect_to'),
		ctx.config.APP_URL,
		ctx.config.AUTH_ALLOWED_ORIGINS,
	)
}

/** POST /recover: mails a password-reset link; 200 {} whether or not the address is known. */
export async function recover(ctx: AuthContext, request: Request, body: Body) {
	await limitIp(ctx, request, 'recover')
	if (!str(body.email)) throw badRequest('validation_failed', 'Password recovery requires an email')
	const email = validateEmail(body.email)
	const pkce = validatePkce(body.code_challenge, body.code_challenge_method)
	await limitEmailSend(ctx, email)
	const user = await findUserByEmail(ctx.db, email)
	if (!user) return json({})
	if (pkce) await createFlowState(ctx, ctx.db, user.id, pkce, 'recovery')
	await sendLinkMail(ctx, user.id, 'recovery', {
		redirectTo: redirectParam(ctx, request),
		pkce: Boolean(pkce),
	})
	return json({})
}

/**
 * POST /otp (magic link): a sign-in link for a confirmed user; an unknown address is signed up
 * first (unless create_user is false), and without autoconfirm gets the confirmation mail instead.
 */
export async function otp(ctx: AuthContext, request: Request, body: Body) {
	await limitIp(ctx, request, 'otp')
	const rawEmail = str(body.email)
	const phone = str(body.phone)
	if (rawEmail && phone)
		throw badRequest(
			'validation_failed',
			'Only an email address or phone number should be provided',
		)
	if (!rawEmail && phone) throw badRequest('phone_provider_disabled', 'Unsupported phone provider')
	if (!rawEmail) throw unprocessable('validation_failed', 'Password recovery requires an email')
	const email = validateEmail(rawEmail)
	const pkce = validatePkce(body.code_challenge, body.code_challenge_method)
	const data = objectParam(body.data, 'data') ?? {}
	const createUser = body.create_user === undefined ? true : body.create_user === true

	let user = await findUserByEmail(ctx.db, email)
	if (!user && !createUser) throw unprocessable('otp_disabled', 'Signups not allowed for otp')
	await limitEmailSend(ctx, email)
	const autoconfirm = ctx.config.AUTH_AUTOCONFIRM
	if (!user) {
		const passwordHash = await bcrypt.hash(generatePassword(), ctx.settings.bcryptCost)
		try {
			await insertEmailUser(ctx.db, {
				email,
				passwordHash,
				data,
				now: ctx.now(),
				confirmed: autoconfirm,
			})
		} catch (error) {
			if (!isUniqueViolation(error)) throw error
		}
		user = (await findUserByEmail(ctx.db, email))!
	}
	const redirectTo = redirectParam(ctx, request)
	if (!user.email_confirmed_at && !autoconfirm) {
		// The confirmation link signs the new user in, as a magic link would.
		if (pkce) await createFlowState(ctx, ctx.db, user.id, pkce, 'email/signup')
		await sendLinkMail(ctx, user.id, 'signup', { redirectTo, pkce: Boolean(pkce) })
		return json({})
	}
	if (pkce) await createFlowState(ctx, ctx.db, user.id, pkce, 'magiclink')
	await sendLinkMail(ctx, user.id, 'magiclink', { redirectTo, pkce: Boolean(pkce) })
	return json({})
}

/** POST /resend: the signup confirmation, or the pending email change's links (both) again. */
export async function resend(ctx: AuthContext, request: Request, body: Body) {
	await limitIp(ctx, request, 'resend')
	const type = str(body.type)
	const pkce = ['signup', 'email_change'].includes(type)
		? validatePkce(body.code_challenge, body.code_challenge_method)
		: null
	if (type === 'sms' || type === 'phone_change')
		throw badRequest('phone_provider_disabled', 'Phone logins are disabled')
	if (type !== 'signup' && type !== 'email_change')
		throw badRequest(
			'validation_failed',
			'Missing one of these types: signup, email_change, sms, phone_change',
		)
	if (!str(body.email)) {
		if (type === 'signup')
			throw badRequest('validation_failed', 'Type provided requires an email address')
		throw badRequest('validation_failed', 'Missing email address or phone number')
	}
	const email = validateEmail(body.email)
	await limitEmailSend(ctx, email)
	const user = await findUserByEmail(ctx.db, email)
	if (!user) return json({})
	const redirectTo = redirectParam(ctx, request)
	if (type === 'signup') {
		if (user.email_confirmed_at) return json({})
		if (pkce) await createFlowState(ctx, ctx.db, user.id, pkce, 'email/signup')
		await sendLinkMail(ctx, user.id, 'signup', { redirectTo, pkce: Boolean(pkce) })
		return json({})
	}
	if (!user.email_change) return json({})
	if (pkce) await createFlowState(ctx, ctx.db, user.id, pkce, 'email_change')
	await sendEmailChangeMails(ctx, user.id, {
		redirectTo,
		pkce: Boolean(pkce),
		newEmail: user.email_change,
	})
	return json({})
}
