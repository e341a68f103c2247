import bcrypt from 'bcrypt'
import type { AuthContext } from './context.server.ts'
import { generateOtp, generatePassword, tokenHash } from './crypto.server.ts'
import { badRequest, notFound, unprocessable } from './errors.server.ts'
import { json, objectParam, str, type Body } from './http.server.ts'
import { actionLink, sendLinkMail, type LinkType } from './mails.server.ts'
import { requireAdmin } from './sessions.server.ts'
import { isUniqueViolation } from './signup.server.ts'
import {
	AUDIENCE,
	confirmEmail,
	findUserByEmail,
	findUserById,
	insertEmailUser,
	isUuid,
	listUsers,
	mergeMetadata,
	setIdentityEmail,
	userJson,
	type LoadedUser,
} from './users.server.ts'
import {
	checkPasswordStrength,
	parseBanDuration,
	PASSWORD_MAX_BYTES,
	safeRedirect,
	validateEmail,
	validatePhone,
} from './validation.server.ts'

const emailExists = () =>
	unprocessable('email_exists', 'A user with this email address has already been registered')

function checkPasswordLength(password: string) {
	if (Buffer.byteLength(password) > PASSWORD_MAX_BYTES)
		throw badRequest(
			'validation_failed',
			`Password cannot be longer than ${PASSWORD_MAX_BYTES} characters`,
		)
}

function banUntil(ctx: AuthContext, duration: unknown): Date | null | undefined {
	if (typeof duration !== 'string' || duration === '') return undefined
	const ms = parseBanDuration(duration)
	return ms === 0 ? null : new Date(ctx.now().getTime() + ms)
}

/** POST /invite: creates the user when needed and mails an invitation link. */
export async function invite(ctx: AuthContext, request: Request, body: Body) {
	await requireAdmin(ctx, request)
	const email = validateEmail(body.email)
	const data = objectParam(body.data, 'data') ?? {}
	let user = await findUserByEmail(ctx.db, email)
	if (user?.email_confirmed_at) throw emailExists()
	if (!user) {
		try {
			await insertEmailUser(ctx.db, { email, passwordHash: '', data, now: ctx.now() })
		} catch (error) {
			if (isUniqueViolation(error)) throw emailExists()
			throw error
		}
		user = (await findUserByEmail(ctx.db, email))!
	}
	const redirectTo = safeRedirect(
		new URL(request.url).searchParams.get('redirect_to'),
		ctx.config.APP_URL,
		ctx.config.AUTH_ALLOWED_ORIGINS,
	)
	await sendLinkMail(ctx, user.id, 'invite', { redirectTo, pkce: false })
	return json(userJson((await findUserById(ctx.db, user.id))!))
}

/** GET /admin/users?page=&per_page=: `{users, aud}` with Link and X-Total-Count. */
export async function adminListUsers(ctx: AuthContext, request: Request) {
	await requireAdmin(ctx, request)
	const url = new URL(request.url)
	const parse = (name: string, fallback: number) => {
		const raw = url.searchParams.get(name)
		if (!raw) return fallback
		if (!/^\d+$/.test(raw))
			throw badRequest('validation_failed', `Bad Pagination Parameters: invalid ${name} "${raw}"`)
		return Number(raw)
	}
	const page = Math.max(1, parse('page', 1))
	const perPage = Math.min(1000, parse('per_page', 50) || 50)
	const { users, total } = await listUsers(
		ctx.db,
		page,
		perPage,
		url.searchParams.get('filter') ?? undefined,
	)
	const totalPages = Math.ceil(total / perPage)
	const link = (p: number) => {
		const query = new URLSearchParams({ page: String(p), per_page: String(perPage) })
		for (const [key, value] of url.searchParams)
			if (key !== 'page' && key !== 'per_page') query.append(key, value)
		return `<${url.pathname}?${query}>`
	}
	const links = []
	if (totalPages > page) links.push(`${link(page + 1)}; rel="next"`)
	links.push(`${link(totalPages)}; rel="last"`)
	return json(
		{ users: users.map(userJson), aud: AUDIENCE },
		{ headers: { Link: links.join(', '), 'X-Total-Count': String(total) } },
	)
}

async function loadUserParam(ctx: AuthContext, id: string) {
	if (!isUuid(id)) throw notFound('validation_failed', 'user_id must be an UUID')
	const user = await findUserById(ctx.db, id)
	if (!user) throw notFound('user_not_found', 'User not found')
	return user
}

export async function adminGetUser(ctx: AuthContext, request: Request, id: string) {
	await requireAdmin(ctx, request)
	return json(userJson(await loadUserParam(ctx, id)))
}

/** POST /admin/users */
export async function adminCreateUser(ctx: AuthContext, request: Request, body: Body) {
	await requireAdmin(ctx, request)
	const rawEmail = str(body.email)
	const rawPhone = str(body.phone)
	if (!rawEmail && !rawPhone)
		throw badRequest('validation_failed', 'Cannot create a user without either an email or phone')
	const email = rawEmail ? validateEmail(rawEmail) : ''
	const phone = rawPhone ? validatePhone(rawPhone) : ''
	if (email && (await findUserByEmail(ctx.db, email))) throw emailExists()
	if (phone) {
		const taken = await ctx.db
			.selectFrom('auth.users')
			.select('id')
			.where('phone', '=', phone)
			.executeTakeFirst()
		if (taken)
			throw unprocessable('phone_exists', 'Phone number already registered by another user')
	}
	if (body.password !== undefined && body.password !== null && str(body.password_hash))
		throw badRequest('validation_failed', 'Only a password or a password hash should be provided')
	const id = str(body.id)
	if (id && !isUuid(id))
		throw badRequest('validation_failed', 'ID must conform to the uuid v4 format')
	let passwordHash = str(body.password_hash)
	if (passwordHash && !/^\$2[aby]\$\d\d\$/.test(passwordHash))
		throw badRequest('validation_failed', 'Invalid password hash: only bcrypt hashes are supported')
	if (!passwordHash) {
		const password = str(body.password) || generatePassword()
		checkPasswordLength(password)
		passwordHash = await bcrypt.hash(password, ctx.settings.bcryptCost)
	}
	const bannedUntil = banUntil(ctx, body.ban_duration)
	const appMetadata = objectParam(body.app_metadata, 'app_metadata')
	let userId: string
	try {
		userId = await insertEmailUser(ctx.db, {
			id: id || undefined,
			email,
			phone,
			passwordHash,
			data: objectParam(body.user_metadata, 'user_metadata') ?? {},
			now: ctx.now(),
			confirmed: body.email_confirm === true && Boolean(email),
			role: str(body.role) || undefined,
			appMetadata,
			bannedUntil,
		})
	} catch (error) {
		if (isUniqueViolation(error))
			throw unprocessable(
				'email_exists',
				'A user with this email address has already been registered',
			)
		throw error
	}
	if (body.phone_confirm === true && phone)
		await ctx.db
			.updateTable('auth.users')
			.set({ phone_confirmed_at: ctx.now() })
			.where('id', '=', userId)
			.execute()
	return json(userJson((await findUserById(ctx.db, userId))!))
}

/** PUT /admin/users/{id}: any field, applied at once (no confirmation mails). */
export async function adminUpdateUser(ctx: AuthContext, request: Request, id: string, body: Body) {
	await requireAdmin(ctx, request)
	const user = await loadUserParam(ctx, id)
	const email = str(body.email) ? validateEmail(body.email) : undefined
	const phone = str(body.phone) ? validatePhone(body.phone) : undefined
	const bannedUntil = banUntil(ctx, body.ban_duration)
	const userMetadata = objectParam(body.user_metadata, 'user_metadata')
	const appMetadata = objectParam(body.app_metadata, 'app_metadata')
	let passwordHash: string | undefined
	if (typeof body.password === 'string') {
		checkPasswordStrength(body.password, ctx.config)
		passwordHash = await bcrypt.hash(body.password, ctx.settings.bcryptCost)
	}
	if (email && email !== user.email) {
		const taken = await findUserByEmail(ctx.db, email)
		if (taken && taken.id !== user.id) throw emailExists()
	}
	try {
		await ctx.db.transaction().execute(async (trx) => {
			const now = ctx.now()
			await trx
				.updateTable('auth.users')
				.set({
					updated_at: now,
					...(str(body.role) ? { role: str(body.role) } : {}),
					...(passwordHash ? { encrypted_password: passwordHash } : {}),
					...(email ? { email } : {}),
					...(phone ? { phone } : {}),
					...(body.phone_confirm === true
						? { phone_confirmed_at: user.phone_confirmed_at ?? now }
						: {}),
					...(appMetadata
						? {
								raw_app_meta_data: JSON.stringify(
									mergeMetadata(user.raw_app_meta_data, appMetadata),
								),
							}
						: {}),
					...(userMetadata
						? {
								raw_user_meta_data: JSON.stringify(
									mergeMetadata(user.raw_user_meta_data, userMetadata),
								),
							}
						: {}),
					...(bannedUntil !== undefined ? { banned_until: bannedUntil } : {}),
				})
				.where('id', '=', user.id)
				.execute()
			if (email && email !== user.email)
				await setIdentityEmail(
					trx,
					user.id,
					{ email, email_verified: body.email_confirm === true },
					now,
				)
			if (body.email_confirm === true) {
				const fresh = (await findUserById(trx, user.id))!
				await confirmEmail(trx, fresh, now)
			}
			if (passwordHash)
				await trx.deleteFrom('auth.sessions').where('user_id', '=', user.id).execute()
		})
	} catch (error) {
		if (isUniqueViolation(error)) throw emailExists()
		throw error
	}
	return json(userJson((await findUserById(ctx.db, user.id))!))
}

/** DELETE /admin/users/{id} (body `should_soft_delete`): 200 {}. */
export async function adminDeleteUser(ctx: AuthContext, request: Request, id: string, body: Body) {
	await requireAdmin(ctx, request)
	const user = await loadUserParam(ctx, id)
	if (body.should_soft_delete === true) {
		await ctx.db.transaction().execute(async (trx) => {
			const now = ctx.now()
			await trx
				.updateTable('auth.users')
				.set({
					deleted_at: now,
					email: null,
					phone: null,
					encrypted_password: '',
					confirmation_token: '',
					recovery_token: '',
					email_change: '',
					email_change_token_new: '',
					email_change_token_current: '',
					email_change_confirm_status: 0,
					raw_app_meta_data: JSON.stringify({}),
					raw_user_meta_data: JSON.stringify({}),
					updated_at: now,
				})
				.where('id', '=', user.id)
				.execute()
			await trx.deleteFrom('auth.identities').where('user_id', '=', user.id).execute()
			await trx.deleteFrom('auth.sessions').where('user_id', '=', user.id).execute()
		})
	} else {
		await ctx.db.deleteFrom('auth.users').where('id', '=', user.id).execute()
	}
	return json({})
}

/**
 * One of an email change's two links (GoTrue: the other link stays as it was, and both must be
 * used again). A link for another new address than the pending one replaces that change: its
 * other link no longer counts.
 */
function emailChangeLink(
	user: LoadedUser,
	current: boolean,
	newEmail: string,
	hashed: string,
	now: Date,
) {
	const samePending = user.email_change === newEmail
	return {
		email_change: newEmail,
		email_change_sent_at: now,
		email_change_confirm_status: 0,
		...(current
			? {
					email_change_token_current: hashed,
					...(samePending ? {} : { email_change_token_new: '' }),
				}
			: {
					email_change_token_new: hashed,
					...(samePending ? {} : { email_change_token_current: '' }),
				}),
	}
}

const GENERATE_TYPES = [
	'signup',
	'invite',
	'magiclink',
	'recovery',
	'email_change_current',
	'email_change_new',
] as const
type GenerateType = (typeof GENERATE_TYPES)[number]

/**
 * POST /admin/generate_link: the link and code a mail would carry, without sending it.
 * Answers with the user's fields plus action_link, email_otp, hashed_token, verification_type,
 * redirect_to.
 */
export async function generateLink(ctx: AuthContext, request: Request, body: Body) {
	await requireAdmin(ctx, request)
	let type = str(body.type) as GenerateType
	const email = validateEmail(body.email)
	const data = objectParam(body.data, 'data') ?? {}
	const redirectTo = safeRedirect(
		str(body.redirect_to) ||
			str(body.redirectTo) ||
			new URL(request.url).searchParams.get('redirect_to'),
		ctx.config.APP_URL,
		ctx.config.AUTH_ALLOWED_ORIGINS,
	)
	if (!GENERATE_TYPES.includes(type))
		throw badRequest('validation_failed', `Invalid email action link type requested: ${type}`)
	let user = await findUserByEmail(ctx.db, email)
	let password = str(body.password)
	if (!user) {
		if (type === 'magiclink') {
			type = 'signup'
			password = generatePassword()
		} else if (type !== 'signup' && type !== 'invite') {
			throw notFound('user_not_found', 'User with this email not found')
		}
	}
	if ((type === 'signup' || type === 'invite') && user?.email_confirmed_at) throw emailExists()
	if (type === 'signup' && !user) {
		if (!password) throw badRequest('validation_failed', 'Signup requires a valid password')
		checkPasswordStrength(password, ctx.config)
	}
	const emailChange = type === 'email_change_current' || type === 'email_change_new'
	if (type === 'email_change_current' && !ctx.config.AUTH_SECURE_EMAIL_CHANGE)
		throw badRequest(
			'validation_failed',
			'Enable secure email change to generate link for current email',
		)
	const newEmail = emailChange ? validateEmail(body.new_email) : undefined
	if (newEmail) {
		const taken = await findUserByEmail(ctx.db, newEmail)
		if (taken) throw emailExists()
	}
	const passwordHash = !user && password ? await bcrypt.hash(password, ctx.settings.bcryptCost) : ''

	const otp = generateOtp()
	// GoTrue answers hashed_token = hash(email, otp) for both; we answer the token the link carries
	// (the new address's link is hashed with the new address), so verifyOtp({token_hash}) works
	const hashed = tokenHash(type === 'email_change_new' ? newEmail! : email, otp)
	const linkType: LinkType =
		type === 'email_change_current' || type === 'email_change_new' ? 'email_change' : type
	const userId = await ctx.db.transaction().execute(async (trx) => {
		const now = ctx.now()
		let id = user?.id
		if (!id) {
			try {
				id = await insertEmailUser(trx, { email, passwordHash, data, now })
			} catch (error) {
				if (isUniqueViolation(error)) throw emailExists()
				throw error
			}
		} else if (type === 'signup' && Object.keys(data).length > 0) {
			await trx
				.updateTable('auth.users')
				.set({ raw_user_meta_data: JSON.stringify(mergeMetadata(user!.raw_user_meta_data, data)) })
				.where('id', '=', id)
				.execute()
		}
		const set =
			linkType === 'signup' || linkType === 'invite'
				? {
						confirmation_token: hashed,
						confirmation_sent_at: now,
						...(linkType === 'invite' ? { invited_at: now } : {}),
					}
				: linkType === 'email_change'
					? emailChangeLink(user!, type === 'email_change_current', newEmail!, hashed, now)
					: { recovery_token: hashed, recovery_sent_at: now }
		await trx.updateTable('auth.users').set(set).where('id', '=', id).execute()
		return id
	})
	user = (await findUserById(ctx.db, userId))!
	return json({
		...userJson(user),
		action_link: actionLink(ctx, hashed, linkType, redirectTo),
		email_otp: otp,
		hashed_token: hashed,
		verification_type: type,
		redirect_to: redirectTo,
	})
}
