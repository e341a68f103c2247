import type { Transaction } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { AuthContext } from './context.server.ts'
import { tokenHash } from './crypto.server.ts'
import { AuthApiError, badRequest, forbidden, unprocessable } from './errors.server.ts'
import { json, redirect, str, type Body } from './http.server.ts'
import { limitIp, limitVerify } from './limits.server.ts'
import { sendEmailChangedNotice } from './mails.server.ts'
import { issueSession, type AuthMethod, type SessionJson } from './sessions.server.ts'
import { isUniqueViolation } from './signup.server.ts'
import {
	confirmEmail,
	findUserByEmail,
	findUserById,
	findUserByToken,
	isBanned,
	setIdentityEmail,
	type LoadedUser,
	type TokenColumn,
} from './users.server.ts'
import { isEmail, safeRedirect } from './validation.server.ts'

type VerifyType = 'signup' | 'invite' | 'magiclink' | 'recovery' | 'email_change' | 'email'
type Applied = Exclude<VerifyType, 'email'>

const VERIFY_TYPES: VerifyType[] = [
	'signup',
	'invite',
	'magiclink',
	'recovery',
	'email_change',
	'email',
]

const COLUMNS: Record<VerifyType, TokenColumn[]> = {
	signup: ['confirmation_token'],
	invite: ['confirmation_token'],
	magiclink: ['recovery_token'],
	recovery: ['recovery_token'],
	email_change: ['email_change_token_current', 'email_change_token_new'],
	email: ['confirmation_token', 'recovery_token'],
}

const METHODS: Record<Applied, AuthMethod> = {
	signup: 'email/signup',
	invite: 'invite',
	magiclink: 'magiclink',
	recovery: 'recovery',
	email_change: 'email_change',
}

const linkExpired = () => forbidden('otp_expired', 'Email link is invalid or has expired')
const codeExpired = () => forbidden('otp_expired', 'Token has expired or is invalid')

/** GoTrue's answer to the first of an email change's two links (its exact text). */
export const SINGLE_CONFIRMATION_ACCEPTED =
	'Confirmation link accepted. Please proceed to confirm link sent to the other email'

/** A verified token: its user, the type it turned out to be, and the stored token it matched. */
type Found = { user: LoadedUser; type: Applied; token: string }

function sentAt(user: LoadedUser, type: Applied) {
	if (type === 'signup' || type === 'invite') return user.confirmation_sent_at
	if (type === 'email_change') return user.email_change_sent_at
	return user.recovery_sent_at
}

function expired(ctx: AuthContext, user: LoadedUser, type: Applied) {
	const at = sentAt(user, type)
	return !at || ctx.now().getTime() > at.getTime() + ctx.settings.otpLifetimeSeconds * 1000
}

/** The user a one-time token belongs to, locked, with the verification type it turned out to be. */
async function findByTokenHash(
	ctx: AuthContext,
	trx: Transaction<DB>,
	type: VerifyType,
	hash: string,
): Promise<Found> {
	const user = await findUserByToken(trx, COLUMNS[type], hash)
	if (!user) throw linkExpired()
	if (isBanned(user, ctx.now())) throw forbidden('user_banned', 'User is banned')
	const applied: Applied =
		type === 'email' ? (user.recovery_token === hash ? 'magiclink' : 'signup') : type
	if (expired(ctx, user, applied)) throw linkExpired()
	return { user, type: applied, token: hash }
}

async function findByEmailAndCode(
	ctx: AuthContext,
	trx: Transaction<DB>,
	type: VerifyType,
	email: string,
	hash: string,
): Promise<Found> {
	const candidates = [hash, `pkce_${hash}`]
	const matching = (stored: string | null) =>
		stored && candidates.includes(stored) ? stored : undefined
	let user: LoadedUser | undefined
	if (type === 'email_change') {
		// the code mailed to the current address (hashed with it) or the one mailed to the new one
		const row = await trx
			.selectFrom('auth.users')
			.select('id')
			.where((eb) =>
				eb.or([
					eb.and([eb('email', '=', email), eb('email_change_token_current', 'in', candidates)]),
					eb.and([eb('email_change', '=', email), eb('email_change_token_new', 'in', candidates)]),
				]),
			)
			.where('deleted_at', 'is', null)
			.executeTakeFirst()
		user = row ? await findUserById(trx, row.id, { forUpdate: true }) : undefined
	} else {
		user = await findUserByEmail(trx, email, { forUpdate: true })
	}
	if (!user) throw codeExpired()
	if (isBanned(user, ctx.now())) throw forbidden('user_banned', 'User is banned')
	let found: Found | undefined
	const check = (applied: Applied, stored: string | null) => {
		const token = matching(stored)
		if (!found && token && !expired(ctx, user, applied)) found = { user, type: applied, token }
	}
	if (type === 'email') {
		check('signup', user.confirmation_token)
		check('magiclink', user.recovery_token)
	} else if (type === 'email_change') {
		check('email_change', user.email_change_token_current)
		check('email_change', user.email_change_token_new)
	} else {
		check(type, user[COLUMNS[type][0]!])
	}
	if (!found) throw codeExpired()
	return found
}

/**
 * What a verified token did: `oldEmail` when the email address switched (its owner is told), and
 * `awaitingOtherLink` when it was the first of an email change's two links (nothing changed yet).
 */
type Outcome = { oldEmail: string | null; awaitingOtherLink: boolean }

/** Applies a verified token: confirms, ends a recovery, or (its last link) switches the email. */
async function apply(ctx: AuthContext, trx: Transaction<DB>, found: Found): Promise<Outcome> {
	const { user, type } = found
	const now = ctx.now()
	const nothing = { oldEmail: null, awaitingOtherLink: false }
	if (type === 'signup' || type === 'invite') {
		await confirmEmail(trx, user, now)
		return nothing
	}
	if (type === 'recovery' || type === 'magiclink') {
		await trx
			.updateTable('auth.users')
			.set({ recovery_token: '', updated_at: now })
			.where('id', '=', user.id)
			.execute()
		if (!user.email_confirmed_at) await confirmEmail(trx, user, now)
		return nothing
	}
	// Secure email change: while both links are pending, the first one used only counts itself
	// (its token is cleared, so it works once) and the address stays (GoTrue's emailChangeVerify).
	// Whether both are needed was decided when the mails went out: a current-address token exists.
	if (
		user.email &&
		user.email_change_confirm_status === 0 &&
		user.email_change_token_current &&
		user.email_change_token_new
	) {
		const usedCurrent = found.token === user.email_change_token_current
		await trx
			.updateTable('auth.users')
			.set({
				email_change_confirm_status: 1,
				...(usedCurrent ? { email_change_token_current: '' } : { email_change_token_new: '' }),
				updated_at: now,
			})
			.where('id', '=', user.id)
			.execute()
		return { oldEmail: null, awaitingOtherLink: true }
	}
	const oldEmail = user.email
	const newEmail = user.email_change!
	try {
		await trx
			.updateTable('auth.users')
			.set({
				email: newEmail,
				email_change: '',
				email_change_token_new: '',
				email_change_token_current: '',
				email_change_confirm_status: 0,
				email_change_sent_at: null,
				updated_at: now,
			})
			.where('id', '=', user.id)
			.execute()
	} catch (error) {
		if (isUniqueViolation(error))
			throw unprocessable(
				'email_exists',
				'A user with this email address has already been registered',
			)
		throw error
	}
	await setIdentityEmail(trx, user.id, { email: newEmail, email_verified: true }, now)
	if (!user.email_confirmed_at) await confirmEmail(trx, user, now)
	return { oldEmail: oldEmail && oldEmail !== newEmail ? oldEmail : null, awaitingOtherLink: false }
}

/**
 * POST /verify: `type` with `token` and `email`, or with `token_hash`. Answers with a session, or
 * for the first of an email change's two links with `{msg, code}` (GoTrue's shape).
 */
export async function verifyPost(ctx: AuthContext, request: Request, body: Body) {
	await limitIp(ctx, request, 'verify')
	const type = str(body.type) as VerifyType
	const token = str(body.token)
	const tokenHashParam = str(body.token_hash)
	const rawEmail = str(body.email)
	if (!type) throw badRequest('validation_failed', 'Verify requires a verification type')
	if ((!token && !tokenHashParam) || (token && tokenHashParam))
		throw badRequest('validation_failed', 'Verify requires either a token or a token hash')
	if (!VERIFY_TYPES.includes(type))
		throw badRequest('validation_failed', 'Unsupported verification type')
	let email = ''
	if (token) {
		if (str(body.phone) && !rawEmail)
			throw badRequest('phone_provider_disabled', 'Phone logins are disabled')
		if (!rawEmail || str(body.phone))
			throw badRequest(
				'validation_failed',
				'Only an email address or phone number should be provided on verify',
			)
		email = rawEmail.trim().toLowerCase()
		if (!isEmail(email)) throw unprocessable('validation_failed', 'Invalid email format')
		await limitVerify(ctx, email)
	} else if (rawEmail || str(body.phone) || str(body.redirect_to)) {
		throw badRequest('validation_failed', 'Only the token_hash and type should be provided')
	}

	let oldEmail: string | null = null
	const session = await ctx.db.transaction().execute(async (trx) => {
		const found = token
			? await findByEmailAndCode(ctx, trx, type, email, tokenHash(email, token))
			: await findByTokenHash(ctx, trx, type, tokenHashParam)
		const outcome = await apply(ctx, trx, found)
		if (outcome.awaitingOtherLink) return null
		oldEmail = outcome.oldEmail
		return issueSession(ctx, trx, found.user.id, 'otp', request)
	})
	// GoTrue's answer to the first of two links: no session (code is a string there too)
	if (!session) return json({ msg: SINGLE_CONFIRMATION_ACCEPTED, code: '200' })
	await notify(ctx, session.user.id, oldEmail)
	return json(session)
}

async function notify(ctx: AuthContext, userId: string, oldEmail: string | null) {
	if (!oldEmail) return
	const user = await findUserById(ctx.db, userId)
	if (user) await sendEmailChangedNotice(ctx, user, oldEmail)
}

const OAUTH_ERRORS: Record<number, string> = {
	400: 'invalid_request',
	401: 'unauthorized_client',
	403: 'access_denied',
	500: 'server_error',
	503: 'temporarily_unavailable',
}

function errorRedirect(target: string, error: AuthApiError, pkce: boolean) {
	const url = new URL(target)
	const fragment = new URLSearchParams()
	const oauth = OAUTH_ERRORS[error.status]
	if (oauth) fragment.set('error', oauth)
	fragment.set('error_code', error.code)
	fragment.set('error_description', error.message)
	fragment.set('sb', '')
	if (pkce) {
		if (oauth) url.searchParams.set('error', oauth)
		url.searchParams.set('error_code', error.code)
		url.searchParams.set('error_description', error.message)
	}
	url.hash = fragment.toString()
	return url.href
}

/** GoTrue's prepRedirectURL: the message in the fragment, and in the query for PKCE links. */
function messageRedirect(target: string, message: string, pkce: boolean) {
	const url = new URL(target)
	if (pkce) url.searchParams.set('message', message)
	url.hash = new URLSearchParams({ message, sb: '' }).toString()
	return url.href
}

function sessionRedirect(target: string, session: SessionJson, type: string) {
	const fragment = new URLSearchParams({
		access_token: session.access_token,
		expires_at: String(session.expires_at),
		expires_in: String(session.expires_in),
		refresh_token: session.refresh_token,
		sb: '',
		token_type: session.token_type,
		type,
	})
	const url = new URL(target)
	url.hash = fragment.toString()
	return url.href
}

/**
 * GET /verify?token=&type=&redirect_to= (the link in the mails): 303 to redirect_to (on APP_URL's
 * origin) with `?code=` for PKCE tokens, `#access_token=...` otherwise, or the error. The first
 * of an email change's two links gives `#message=` (and `?message=` for PKCE) instead.
 */
export async function verifyGet(ctx: AuthContext, request: Request) {
	await limitIp(ctx, request, 'verify')
	const params = new URL(request.url).searchParams
	const token = params.get('token') ?? ''
	const type = (params.get('type') ?? '') as VerifyType
	const target = safeRedirect(
		params.get('redirect_to'),
		ctx.config.APP_URL,
		ctx.config.AUTH_ALLOWED_ORIGINS,
	)
	if (!type) throw badRequest('validation_failed', 'Verify requires a verification type')
	if (!token) throw badRequest('validation_failed', 'Verify requires a token or a token hash')
	const pkce = token.startsWith('pkce_')

	let oldEmail: string | null = null
	let userId: string | null = null
	let location: string
	try {
		if (type === 'email' || !VERIFY_TYPES.includes(type))
			throw badRequest('validation_failed', 'Unsupported verification type')
		location = await ctx.db.transaction().execute(async (trx) => {
			const found = await findByTokenHash(ctx, trx, type, token)
			const outcome = await apply(ctx, trx, found)
			if (outcome.awaitingOtherLink)
				return messageRedirect(target, SINGLE_CONFIRMATION_ACCEPTED, pkce)
			oldEmail = outcome.oldEmail
			userId = found.user.id
			if (!pkce) {
				const session = await issueSession(ctx, trx, found.user.id, 'otp', request)
				return sessionRedirect(target, session, type)
			}
			const flow = await trx
				.selectFrom('auth.flow_state')
				.select(['id', 'auth_code'])
				.where('user_id', '=', found.user.id)
				.where('authentication_method', '=', METHODS[found.type])
				.orderBy('created_at', 'desc')
				.limit(1)
				.executeTakeFirst()
			if (!flow)
				throw badRequest(
					'flow_state_not_found',
					'No associated flow state found. No valid flow state found for user.',
				)
			await trx
				.updateTable('auth.flow_state')
				.set({ auth_code_issued_at: ctx.now(), updated_at: ctx.now() })
				.where('id', '=', flow.id)
				.execute()
			const url = new URL(target)
			url.searchParams.set('code', flow.auth_code)
			return url.href
		})
	} catch (error) {
		if (error instanceof AuthApiError && error.status < 500)
			return redirect(errorRedirect(target, error, pkce))
		throw error
	}
	if (userId) await notify(ctx, userId, oldEmail)
	return redirect(location)
}
