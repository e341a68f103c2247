import bcrypt from 'bcrypt'
import type { AuthContext } from './context.server.ts'
import { s256, safeEqual } from './crypto.server.ts'
import { badRequest, notFound, unprocessable } from './errors.server.ts'
import { json, str, type Body } from './http.server.ts'
import {
	checkPasswordFailures,
	clearPasswordFailures,
	limitIp,
	recordPasswordFailure,
} from './limits.server.ts'
import { issueSession, refreshSession, type AuthMethod } from './sessions.server.ts'
import { findUserByEmail, findUserById, isBanned } from './users.server.ts'
import { passwordWeakness } from './validation.server.ts'

// Compared against when the email is unknown, so both cases take one bcrypt comparison.
const dummyHashes = new Map<number, Promise<string>>()
function dummyHash(cost: number) {
	let hash = dummyHashes.get(cost)
	if (!hash) dummyHashes.set(cost, (hash = bcrypt.hash(crypto.randomUUID(), cost)))
	return hash
}

/** POST /token?grant_type=password|refresh_token|pkce */
export async function token(ctx: AuthContext, request: Request, body: Body) {
	const grantType = new URL(request.url).searchParams.get('grant_type')
	switch (grantType) {
		case 'password':
			return passwordGrant(ctx, request, body)
		case 'refresh_token':
			return json(await refreshSession(ctx, str(body.refresh_token), request))
		case 'pkce':
			return pkceGrant(ctx, request, body)
		default:
			throw badRequest('invalid_credentials', 'unsupported_grant_type')
	}
}

async function passwordGrant(ctx: AuthContext, request: Request, body: Body) {
	await limitIp(ctx, request, 'token')
	const rawEmail = str(body.email)
	const phone = str(body.phone)
	const password = str(body.password)
	if (rawEmail && phone)
		throw badRequest(
			'validation_failed',
			'Only an email address or phone number should be provided on login.',
		)
	if (!rawEmail && phone)
		throw unprocessable('phone_provider_disabled', 'Phone logins are disabled')
	if (!rawEmail) throw badRequest('validation_failed', 'missing email or phone')
	const email = rawEmail.trim().toLowerCase()
	await checkPasswordFailures(ctx, request, email)

	const user = await findUserByEmail(ctx.db, email)
	const valid = await bcrypt.compare(
		password,
		user?.encrypted_password || (await dummyHash(ctx.settings.bcryptCost)),
	)
	if (!user || !user.encrypted_password || !valid) {
		await recordPasswordFailure(ctx, request, email)
		throw badRequest('invalid_credentials', 'Invalid login credentials')
	}
	if (isBanned(user, ctx.now())) throw badRequest('user_banned', 'User is banned')
	if (!user.email_confirmed_at) throw badRequest('email_not_confirmed', 'Email not confirmed')
	await clearPasswordFailures(ctx, request, email)

	const session = await ctx.db
		.transaction()
		.execute((trx) => issueSession(ctx, trx, user.id, 'password', request))
	const weakness = passwordWeakness(password, ctx.config)
	return json(weakness.reasons.length ? { ...session, weak_password: weakness } : session)
}

const FLOW_METHODS: AuthMethod[] = [
	'email/signup',
	'invite',
	'magiclink',
	'recovery',
	'email_change',
	'otp',
	'password',
]

async function pkceGrant(ctx: AuthContext, request: Request, body: Body) {
	const authCode = str(body.auth_code)
	const verifier = str(body.code_verifier)
	if (!authCode || !verifier)
		throw badRequest(
			'validation_failed',
			'invalid request: both auth code and code verifier should be non-empty',
		)
	const session = await ctx.db.transaction().execute(async (trx) => {
		const flow = await trx
			.selectFrom('auth.flow_state')
			.selectAll()
			.where('auth_code', '=', authCode)
			.forUpdate()
			.executeTakeFirst()
		if (!flow || !flow.user_id)
			throw notFound('flow_state_not_found', 'invalid flow state, no valid flow state found')
		const now = ctx.now().getTime()
		const expiresAt = flow.auth_code_issued_at
			? flow.auth_code_issued_at.getTime() + ctx.settings.flowStateLifetimeSeconds * 1000
			: (flow.created_at?.getTime() ?? 0) + ctx.settings.otpLifetimeSeconds * 1000
		if (now > expiresAt)
			throw unprocessable('flow_state_expired', 'invalid flow state, flow state has expired')
		const expected =
			flow.code_challenge_method.toLowerCase() === 'plain' ? verifier : s256(verifier)
		if (!safeEqual(expected, flow.code_challenge))
			throw badRequest(
				'bad_code_verifier',
				'code challenge does not match previously saved code verifier',
			)
		const user = await findUserById(trx, flow.user_id)
		if (!user) throw notFound('user_not_found', 'User not found')
		if (isBanned(user, ctx.now())) throw badRequest('user_banned', 'User is banned')
		const method = FLOW_METHODS.find((m) => m === flow.authentication_method) ?? 'otp'
		const issued = await issueSession(ctx, trx, user.id, method, request)
		await trx.deleteFrom('auth.flow_state').where('id', '=', flow.id).execute()
		return issued
	})
	return json(session)
}
