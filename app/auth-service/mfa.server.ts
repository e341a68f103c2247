// TOTP multi-factor authentication, as Supabase Auth's /factors endpoints (supabase-js auth.mfa)
// and its admin factor endpoints (auth.admin.mfa) behave.
import { isIP } from 'node:net'
import { randomUUID } from 'node:crypto'
import type { AuthContext, Executor } from './context.server.ts'
import { decrypt, encrypt, generateRefreshToken } from './crypto.server.ts'
import {
	AuthApiError,
	badRequest,
	notFound,
	tooManyRequests,
	unprocessable,
} from './errors.server.ts'
import { json, str, type Body } from './http.server.ts'
import { limitIp } from './limits.server.ts'
import { accessToken, authenticate, requireAdmin } from './sessions.server.ts'
import { matchTotp, generateTotpSecret, qrCodeSvg, totpUri } from './totp.server.ts'
import { factorJson, findUserById, isUuid } from './users.server.ts'

/** GoTrue's defaults: a challenge lasts 300 s; at most 10 factors a user. */
const CHALLENGE_LIFETIME_SECONDS = 300
const MAX_ENROLLED_FACTORS = 10
const SECRET_PURPOSE = 'mfa-totp-secret'

const unix = (date: Date) => Math.floor(date.getTime() / 1000)
const factorNotFound = () => notFound('mfa_factor_not_found', 'Factor not found')

function sealSecret(ctx: AuthContext, factorId: string, secret: string) {
	return encrypt(secret, ctx.config.APP_SECRET, SECRET_PURPOSE, factorId)
}

function openSecret(ctx: AuthContext, factorId: string, sealed: string) {
	return decrypt(sealed, ctx.config.APP_SECRET, SECRET_PURPOSE, factorId)
}

async function findFactor(db: Executor, userId: string, factorId: string, forUpdate = false) {
	if (!isUuid(factorId)) throw factorNotFound()
	let query = db
		.selectFrom('auth.mfa_factors')
		.selectAll()
		.where('id', '=', factorId)
		.where('user_id', '=', userId)
	if (forUpdate) query = query.forUpdate()
	const factor = await query.executeTakeFirst()
	if (!factor) throw factorNotFound()
	return factor
}

function clientIp(ctx: AuthContext, request: Request) {
	const ip = ctx.clientIp(request)
	return isIP(ip) ? ip : '0.0.0.0'
}

/** POST /factors: a new, unverified TOTP factor with its secret, URI and QR code. */
export async function enrollFactor(ctx: AuthContext, request: Request, body: Body) {
	const { user, aal } = await authenticate(ctx, request)
	const factorType = str(body.factor_type)
	if (factorType === 'phone')
		throw unprocessable('mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone')
	if (factorType === 'webauthn')
		throw unprocessable('mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn')
	if (factorType !== 'totp')
		throw badRequest('validation_failed', 'factor_type needs to be totp, phone or webauthn')
	const friendlyName = str(body.friendly_name).trim()
	const issuer = str(body.issuer).trim() || new URL(ctx.config.APP_URL).host
	const factors = user.factors ?? []
	const verified = factors.filter((f) => f.status === 'verified')
	// A second factor may be added only by someone who already passed the first one.
	if (verified.length > 0 && aal !== 'aal2')
		throw unprocessable('insufficient_aal', 'AAL2 required to enroll a new factor')
	if (factors.length >= MAX_ENROLLED_FACTORS)
		throw unprocessable(
			'too_many_enrolled_mfa_factors',
			'Maximum number of verified factors reached, unenroll to continue',
		)
	if (friendlyName && factors.some((f) => f.friendly_name === friendlyName))
		throw unprocessable(
			'mfa_factor_name_conflict',
			`A factor with the friendly name "${friendlyName}" for this user already exists`,
		)
	const id = randomUUID()
	const secret = generateTotpSecret()
	const uri = totpUri(secret, issuer, user.email ?? user.id)
	const now = ctx.now()
	await ctx.db
		.insertInto('auth.mfa_factors')
		.values({
			id,
			user_id: user.id,
			friendly_name: friendlyName,
			factor_type: 'totp',
			status: 'unverified',
			created_at: now,
			updated_at: now,
			secret: sealSecret(ctx, id, secret),
		})
		.execute()
	return json({
		id,
		type: 'totp',
		friendly_name: friendlyName,
		totp: { qr_code: qrCodeSvg(uri), secret, uri },
	})
}

/** POST /factors/:id/challenge */
export async function challengeFactor(ctx: AuthContext, request: Request, factorId: string) {
	await limitIp(ctx, request, 'mfa')
	const { user } = await authenticate(ctx, request)
	const factor = await findFactor(ctx.db, user.id, factorId)
	const now = ctx.now()
	const id = randomUUID()
	await ctx.db.transaction().execute(async (trx) => {
		await trx
			.insertInto('auth.mfa_challenges')
			.values({ id, factor_id: factor.id, created_at: now, ip_address: clientIp(ctx, request) })
			.execute()
		await trx
			.updateTable('auth.mfa_factors')
			.set({ last_challenged_at: now })
			.where('id', '=', factor.id)
			.execute()
	})
	return json({ id, type: 'totp', expires_at: unix(now) + CHALLENGE_LIFETIME_SECONDS })
}

/**
 * POST /factors/:id/verify {challenge_id, code}: a right code verifies the factor (first time)
 * and raises the session to aal2 with a `totp` amr claim; the session's refresh token rotates
 * and the answer is the new session. The user's other sessions below aal2 end (GoTrue).
 */
export async function verifyFactor(
	ctx: AuthContext,
	request: Request,
	factorId: string,
	body: Body,
) {
	await limitIp(ctx, request, 'mfa')
	const { user, sessionId } = await authenticate(ctx, request)
	if (!sessionId) throw new AuthApiError(401, 'session_not_found', 'Session not found')
	const challengeId = str(body.challenge_id)
	const code = str(body.code).trim()
	await findFactor(ctx.db, user.id, factorId)
	// at most AUTH_RATE_LIMIT_EMAIL guesses a factor a window: 6 digits cannot be walked
	const allowed = await ctx.limiter.hit(
		`mfa:${factorId}`,
		ctx.config.AUTH_RATE_LIMIT_EMAIL,
		ctx.now(),
	)
	if (!allowed) throw tooManyRequests('over_request_rate_limit', 'Request rate limit reached')

	const outcome = await ctx.db.transaction().execute(async (trx) => {
		const now = ctx.now()
		const factor = await findFactor(trx, user.id, factorId, true)
		const challenge = isUuid(challengeId)
			? await trx
					.selectFrom('auth.mfa_challenges')
					.selectAll()
					.where('id', '=', challengeId)
					.where('factor_id', '=', factor.id)
					.executeTakeFirst()
			: undefined
		if (!challenge)
			return {
				error: notFound(
					'mfa_challenge_not_found',
					'MFA factor with the provided challenge ID not found',
				),
			}
		if (now.getTime() > challenge.created_at.getTime() + CHALLENGE_LIFETIME_SECONDS * 1000) {
			await trx.deleteFrom('auth.mfa_challenges').where('id', '=', challenge.id).execute()
			return {
				error: unprocessable(
					'mfa_challenge_expired',
					`MFA challenge ${challenge.id} has expired, verify against another challenge or create a new challenge.`,
				),
			}
		}
		if (challenge.ip_address !== clientIp(ctx, request))
			return {
				error: unprocessable(
					'mfa_ip_address_mismatch',
					'Challenge and verify IP addresses mismatch',
				),
			}
		const step = factor.secret
			? matchTotp(openSecret(ctx, factor.id, factor.secret), code, now)
			: null
		// a code counts once: not again, nor an older one, once a later one was used
		if (step === null || (factor.last_totp_step !== null && step <= factor.last_totp_step))
			return { error: unprocessable('mfa_verification_failed', 'Invalid TOTP code entered') }

		await trx.deleteFrom('auth.mfa_challenges').where('id', '=', challenge.id).execute()
		await trx
			.updateTable('auth.mfa_factors')
			.set({ status: 'verified', last_totp_step: step, updated_at: now })
			.where('id', '=', factor.id)
			.execute()
		await trx
			.updateTable('auth.sessions')
			.set({ aal: 'aal2', factor_id: factor.id, updated_at: now })
			.where('id', '=', sessionId)
			.execute()
		await trx
			.insertInto('auth.mfa_amr_claims')
			.values({
				id: randomUUID(),
				session_id: sessionId,
				authentication_method: 'totp',
				created_at: now,
				updated_at: now,
			})
			.onConflict((oc) =>
				oc.columns(['session_id', 'authentication_method']).doUpdateSet({ updated_at: now }),
			)
			.execute()
		await trx
			.deleteFrom('auth.sessions')
			.where('user_id', '=', user.id)
			.where('id', '!=', sessionId)
			.where((eb) => eb.or([eb('aal', 'is', null), eb('aal', '!=', 'aal2')]))
			.execute()
		// the session's refresh token rotates: the upgraded session gets a fresh one
		const active = await trx
			.selectFrom('auth.refresh_tokens')
			.select('token')
			.where('session_id', '=', sessionId)
			.where('revoked', '=', false)
			.orderBy('id', 'desc')
			.executeTakeFirst()
		await trx
			.updateTable('auth.refresh_tokens')
			.set({ revoked: true, updated_at: now })
			.where('session_id', '=', sessionId)
			.where('revoked', '=', false)
			.execute()
		const refreshToken = generateRefreshToken()
		await trx
			.insertInto('auth.refresh_tokens')
			.values({
				instance_id: '00000000-0000-0000-0000-000000000000',
				token: refreshToken,
				user_id: user.id,
				revoked: false,
				parent: active?.token ?? null,
				session_id: sessionId,
				created_at: now,
				updated_at: now,
			})
			.execute()
		const fresh = (await findUserById(trx, user.id))!
		const access = await accessToken(ctx, trx, fresh, sessionId, 'aal2')
		return {
			session: {
				access_token: access.token,
				token_type: 'bearer',
				expires_in: access.expiresIn,
				expires_at: access.exp,
				refresh_token: refreshToken,
				user: access.profile,
			},
		}
	})
	if ('error' in outcome) throw outcome.error
	return json(outcome.session)
}

/**
 * Removes a factor; sessions it raised to aal2 go back to aal1 (their next token says so).
 */
async function removeFactor(trx: Executor, factorId: string) {
	const sessions = await trx
		.updateTable('auth.sessions')
		.set({ aal: 'aal1', factor_id: null })
		.where('factor_id', '=', factorId)
		.returning('id')
		.execute()
	if (sessions.length > 0)
		await trx
			.deleteFrom('auth.mfa_amr_claims')
			.where(
				'session_id',
				'in',
				sessions.map((s) => s.id),
			)
			.where('authentication_method', '=', 'totp')
			.execute()
	await trx.deleteFrom('auth.mfa_factors').where('id', '=', factorId).execute()
}

/** DELETE /factors/:id: a verified factor only from an aal2 session. */
export async function unenrollFactor(ctx: AuthContext, request: Request, factorId: string) {
	const { user, aal } = await authenticate(ctx, request)
	const factor = await findFactor(ctx.db, user.id, factorId)
	if (factor.status === 'verified' && aal !== 'aal2')
		throw unprocessable('insufficient_aal', 'AAL2 required to unenroll verified factor')
	await ctx.db.transaction().execute((trx) => removeFactor(trx, factor.id))
	return json({ id: factor.id })
}

async function adminUser(ctx: AuthContext, userId: string) {
	if (!isUuid(userId)) throw notFound('validation_failed', 'user_id must be an UUID')
	const user = await findUserById(ctx.db, userId)
	if (!user) throw notFound('user_not_found', 'User not found')
	return user
}

/** GET /admin/users/:id/factors */
export async function adminListFactors(ctx: AuthContext, request: Request, userId: string) {
	await requireAdmin(ctx, request)
	const user = await adminUser(ctx, userId)
	return json((user.factors ?? []).map(factorJson))
}

/** DELETE /admin/users/:id/factors/:factorId: the removed factor. */
export async function adminDeleteFactor(
	ctx: AuthContext,
	request: Request,
	userId: string,
	factorId: string,
) {
	await requireAdmin(ctx, request)
	const user = await adminUser(ctx, userId)
	const factor = await findFactor(ctx.db, user.id, factorId)
	await ctx.db.transaction().execute((trx) => removeFactor(trx, factor.id))
	return json(factorJson(factor))
}
