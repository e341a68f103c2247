import { isIP } from 'node:net'
import { randomUUID } from 'node:crypto'
import type { JWTPayload } from 'jose'
import type { AuthContext, Executor } from './context.server.ts'
import { generateRefreshToken } from './crypto.server.ts'
import { AuthApiError, badRequest, forbidden, OAuthError } from './errors.server.ts'
import {
	findUserById,
	isBanned,
	isUuid,
	userJson,
	type LoadedUser,
	type UserJson,
} from './users.server.ts'

/** How a session was authenticated (Supabase's authentication method names, the `amr` claim). */
export type AuthMethod =
	| 'password'
	| 'otp'
	| 'magiclink'
	| 'recovery'
	| 'invite'
	| 'email/signup'
	| 'email_change'
	| 'totp'

/** Authenticator assurance level: aal2 once a second factor was verified in the session. */
export type Aal = 'aal1' | 'aal2'

export type SessionJson = {
	access_token: string
	token_type: 'bearer'
	expires_in: number
	expires_at: number
	refresh_token: string
	user: UserJson
	weak_password?: { reasons: string[]; message: string }
}

const unix = (date: Date) => Math.floor(date.getTime() / 1000)

function requestInfo(ctx: AuthContext, request: Request) {
	const ip = ctx.clientIp(request)
	return {
		user_agent: request.headers.get('user-agent') || null,
		ip: isIP(ip) ? ip : null,
	}
}

async function amrClaims(db: Executor, sessionId: string) {
	const rows = await db
		.selectFrom('auth.mfa_amr_claims')
		.select(['authentication_method', 'updated_at'])
		.where('session_id', '=', sessionId)
		.orderBy('updated_at', 'desc')
		.execute()
	return rows.map((r) => ({ method: r.authentication_method, timestamp: unix(r.updated_at) }))
}

/** A signed access token for `user` in `sessionId`, with Supabase's claims. */
export async function accessToken(
	ctx: AuthContext,
	db: Executor,
	user: LoadedUser,
	sessionId: string,
	aal: Aal,
) {
	const now = ctx.now()
	const iat = unix(now)
	const exp = iat + ctx.settings.accessTokenLifetimeSeconds
	const profile = userJson(user)
	const token = await ctx.keys.sign({
		iss: ctx.issuer,
		sub: user.id,
		aud: user.aud ?? 'authenticated',
		exp,
		iat,
		email: profile.email,
		phone: profile.phone,
		app_metadata: profile.app_metadata,
		user_metadata: profile.user_metadata,
		role: user.role ?? 'authenticated',
		aal,
		amr: await amrClaims(db, sessionId),
		session_id: sessionId,
		is_anonymous: user.is_anonymous,
	})
	return { token, exp, expiresIn: exp - iat, profile }
}

/** Starts a session for `userId`: session row, amr claim, first refresh token, access token. */
export async function issueSession(
	ctx: AuthContext,
	trx: Executor,
	userId: string,
	method: AuthMethod,
	request: Request,
): Promise<SessionJson> {
	const now = ctx.now()
	const sessionId = randomUUID()
	await trx
		.insertInto('auth.sessions')
		.values({
			id: sessionId,
			user_id: userId,
			created_at: now,
			updated_at: now,
			aal: 'aal1',
			...requestInfo(ctx, request),
		})
		.execute()
	await trx
		.insertInto('auth.mfa_amr_claims')
		.values({
			id: randomUUID(),
			session_id: sessionId,
			authentication_method: method,
			created_at: now,
			updated_at: now,
		})
		.execute()
	await trx
		.updateTable('auth.users')
		.set({ last_sign_in_at: now, updated_at: now })
		.where('id', '=', userId)
		.execute()
	await trx
		.updateTable('auth.identities')
		.set({ last_sign_in_at: now })
		.where('user_id', '=', userId)
		.where('provider', '=', 'email')
		.execute()
	const refreshToken = generateRefreshToken()
	await trx
		.insertInto('auth.refresh_tokens')
		.values({
			instance_id: '00000000-0000-0000-0000-000000000000',
			token: refreshToken,
			user_id: userId,
			revoked: false,
			parent: null,
			session_id: sessionId,
			created_at: now,
			updated_at: now,
		})
		.execute()
	const user = await findUserById(trx, userId)
	if (!user) throw new Error('user vanished while signing in')
	const access = await accessToken(ctx, trx, user, sessionId, 'aal1')
	return {
		access_token: access.token,
		token_type: 'bearer',
		expires_in: access.expiresIn,
		expires_at: access.exp,
		refresh_token: refreshToken,
		user: access.profile,
	}
}

/**
 * The refresh_token grant. The presented token's row is locked (FOR UPDATE), so concurrent
 * refreshes of one token run one after the other. Using a token revokes it and issues a child.
 * A revoked token presented again gets the session's active token when it is that token's
 * parent (any time) or within the reuse interval; otherwise the whole session ends.
 */
export async function refreshSession(ctx: AuthContext, refreshToken: string, request: Request) {
	if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token required')
	const outcome = await ctx.db
		.transaction()
		.execute(async (trx): Promise<{ error: AuthApiError } | { session: SessionJson }> => {
			const now = ctx.now()
			const row = await trx
				.selectFrom('auth.refresh_tokens')
				.selectAll()
				.where('token', '=', refreshToken)
				.forUpdate()
				.executeTakeFirst()
			if (!row)
				return {
					error: badRequest(
						'refresh_token_not_found',
						'Invalid Refresh Token: Refresh Token Not Found',
					),
				}
			const session = row.session_id
				? await trx
						.selectFrom('auth.sessions')
						.selectAll()
						.where('id', '=', row.session_id)
						.forUpdate()
						.executeTakeFirst()
				: undefined
			if (!session) {
				await trx.deleteFrom('auth.refresh_tokens').where('id', '=', row.id).execute()
				return {
					error: badRequest('session_not_found', 'Invalid Refresh Token: No Valid Session Found'),
				}
			}
			const user = await findUserById(trx, session.user_id)
			if (!user)
				return {
					error: badRequest(
						'refresh_token_not_found',
						'Invalid Refresh Token: Refresh Token Not Found',
					),
				}
			if (isBanned(user, now))
				return { error: badRequest('user_banned', 'Invalid Refresh Token: User Banned') }

			let issued: string
			if (row.revoked) {
				// GoTrue's rule: the parent of the session's active token may always be presented
				// again (the client lost the answer to its last refresh) and gets the active token;
				// an older token is fine only within the reuse interval (concurrent refreshes);
				// anything else is a replay, and the session ends.
				const active = await trx
					.selectFrom('auth.refresh_tokens')
					.select(['token', 'parent'])
					.where('session_id', '=', session.id)
					.where('revoked', '=', false)
					.orderBy('id', 'desc')
					.executeTakeFirst()
				const revokedAt = (row.updated_at ?? row.created_at ?? new Date(0)).getTime()
				const withinInterval =
					now.getTime() - revokedAt <= ctx.settings.refreshTokenReuseIntervalSeconds * 1000
				if (!active?.token || (active.parent !== row.token && !withinInterval)) {
					// Replay of a used token: whoever holds the session's tokens, the session ends.
					await trx.deleteFrom('auth.sessions').where('id', '=', session.id).execute()
					return {
						error: badRequest('refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
					}
				}
				issued = active.token
			} else {
				issued = generateRefreshToken()
				await trx
					.updateTable('auth.refresh_tokens')
					.set({ revoked: true, updated_at: now })
					.where('id', '=', row.id)
					.execute()
				await trx
					.insertInto('auth.refresh_tokens')
					.values({
						instance_id: '00000000-0000-0000-0000-000000000000',
						token: issued,
						user_id: user.id,
						revoked: false,
						parent: row.token,
						session_id: session.id,
						created_at: now,
						updated_at: now,
					})
					.execute()
			}
			await trx
				.updateTable('auth.sessions')
				.set({
					refreshed_at: now.toISOString(),
					updated_at: now,
					...requestInfo(ctx, request),
				})
				.where('id', '=', session.id)
				.execute()
			const access = await accessToken(
				ctx,
				trx,
				user,
				session.id,
				session.aal === 'aal2' ? 'aal2' : 'aal1',
			)
			return {
				session: {
					access_token: access.token,
					token_type: 'bearer',
					expires_in: access.expiresIn,
					expires_at: access.exp,
					refresh_token: issued,
					user: access.profile,
				},
			}
		})
	if ('error' in outcome) throw outcome.error
	return outcome.session
}

export type Authenticated = {
	claims: JWTPayload & { session_id?: string; role?: string }
	user: LoadedUser
	sessionId: string | null
	/** the session's assurance level as stored (the token's claim may be older) */
	aal: Aal
}

export function bearerToken(request: Request) {
	const match = /^[Bb]earer (\S+)$/.exec(request.headers.get('authorization') ?? '')
	if (!match)
		throw new AuthApiError(401, 'no_authorization', 'This endpoint requires a valid Bearer token')
	return match[1]!
}

/** A signed-in user's request: valid access token, existing user and session, not banned. */
export async function authenticate(ctx: AuthContext, request: Request): Promise<Authenticated> {
	const claims = (await ctx.keys.verify(bearerToken(request), ctx.now())) as Authenticated['claims']
	if (!claims.sub) throw forbidden('bad_jwt', 'invalid claim: missing sub claim')
	if (!isUuid(claims.sub)) throw badRequest('bad_jwt', 'invalid claim: sub claim must be a UUID')
	if (claims.session_id !== undefined && !isUuid(String(claims.session_id)))
		throw forbidden('bad_jwt', 'invalid claim: session_id claim must be a UUID')
	const user = await findUserById(ctx.db, claims.sub)
	if (!user) throw forbidden('user_not_found', 'User from sub claim in JWT does not exist')
	let sessionId: string | null = null
	let aal: Aal = 'aal1'
	if (claims.session_id) {
		const session = await ctx.db
			.selectFrom('auth.sessions')
			.select(['id', 'aal'])
			.where('id', '=', claims.session_id)
			.executeTakeFirst()
		if (!session)
			throw forbidden('session_not_found', 'Session from session_id claim in JWT does not exist')
		sessionId = session.id
		if (session.aal === 'aal2') aal = 'aal2'
	}
	if (isBanned(user, ctx.now())) throw forbidden('user_banned', 'User is banned')
	return { claims, user, sessionId, aal }
}

const ADMIN_ROLES = ['service_role', 'supabase_admin']

/** A request with the service-role key (or another admin-role JWT). */
export async function requireAdmin(ctx: AuthContext, request: Request) {
	const claims = await ctx.keys.verify(bearerToken(request), ctx.now())
	if (typeof claims.role !== 'string' || !ADMIN_ROLES.includes(claims.role))
		throw forbidden('not_admin', 'User not allowed')
	return claims
}
