import bcrypt from 'bcrypt'
import type { AuthContext } from './context.server.ts'
import { badRequest, unprocessable } from './errors.server.ts'
import { json, objectParam, str, type Body } from './http.server.ts'
import { createFlowState, sendAccountExistsNotice, sendLinkMail } from './mails.server.ts'
import { limitEmailSend, limitIp } from './limits.server.ts'
import { issueSession } from './sessions.server.ts'
import {
	confirmEmail,
	findUserByEmail,
	insertEmailUser,
	userJson,
	type LoadedUser,
} from './users.server.ts'
import {
	checkPasswordStrength,
	safeRedirect,
	validateEmail,
	validatePkce,
} from './validation.server.ts'

export function isUniqueViolation(error: unknown) {
	return (error as { code?: string } | null)?.code === '23505'
}

/** POST /signup */
export async function signup(ctx: AuthContext, request: Request, body: Body) {
	await limitIp(ctx, request, 'signup')
	const email = str(body.email)
	const phone = str(body.phone)
	const password = str(body.password)
	if (!email && !phone)
		throw unprocessable('anonymous_provider_disabled', 'Anonymous sign-ins are disabled')
	if (!password) throw badRequest('validation_failed', 'Signup requires a valid password')
	checkPasswordStrength(password, ctx.config)
	if (email && phone)
		throw badRequest(
			'validation_failed',
			'Only an email address or phone number should be provided on signup.',
		)
	const pkce = validatePkce(body.code_challenge, body.code_challenge_method)
	if (!email) throw badRequest('phone_provider_disabled', 'Phone signups are disabled')
	const address = validateEmail(email)
	const data = objectParam(body.data, 'data') ?? {}
	const redirectTo = safeRedirect(
		new URL(request.url).searchParams.get('redirect_to'),
		ctx.config.APP_URL,
		ctx.config.AUTH_ALLOWED_ORIGINS,
	)
	const autoconfirm = ctx.config.AUTH_AUTOCONFIRM
	if (!autoconfirm) await limitEmailSend(ctx, address)
	// With confirmation on, every address costs one hash, so timing tells nothing either.
	const newHash = autoconfirm ? null : await bcrypt.hash(password, ctx.settings.bcryptCost)

	let user = await findUserByEmail(ctx.db, address)
	if (user?.email_confirmed_at) {
		// With autoconfirm a new address gets a session at once, so the API cannot hide who is
		// registered; GoTrue answers 422 too (decision 0023). The owner still hears of it, and the
		// hash a new address costs is paid here too: an app that answers both alike (the sign-up
		// page on a public APP_URL, decision 0056) is then not told apart by its timing.
		if (autoconfirm) {
			await bcrypt.hash(password, ctx.settings.bcryptCost)
			await sendAccountExistsNotice(ctx, user).catch((error: unknown) => {
				// one notice a minute is enough; the answer is the same either way
				if ((error as { status?: number }).status !== 429) throw error
			})
			throw unprocessable('user_already_exists', 'User already registered')
		}
		// Without autoconfirm, say nothing about who is registered: a look-alike user (as
		// GoTrue), and the owner gets a notice instead of a confirmation link.
		await sendAccountExistsNotice(ctx, user)
		return json(lookalikeUser(ctx, address, data))
	}

	if (user && autoconfirm) {
		// An unconfirmed account (invited, or made before autoconfirm was on) is taken over only
		// with its own password, or given this one when it has none.
		const matches = user.encrypted_password
			? await bcrypt.compare(password, user.encrypted_password)
			: false
		if (user.encrypted_password && !matches)
			throw unprocessable('user_already_exists', 'User already registered')
		const hash = matches ? null : await bcrypt.hash(password, ctx.settings.bcryptCost)
		const existing = user
		return json(
			await ctx.db.transaction().execute(async (trx) => {
				if (hash)
					await trx
						.updateTable('auth.users')
						.set({ encrypted_password: hash })
						.where('id', '=', existing.id)
						.execute()
				await confirmEmail(trx, existing, ctx.now())
				return issueSession(ctx, trx, existing.id, 'password', request)
			}),
		)
	}

	if (!user) {
		const passwordHash = newHash ?? (await bcrypt.hash(password, ctx.settings.bcryptCost))
		try {
			user = await ctx.db.transaction().execute(async (trx) => {
				const id = await insertEmailUser(trx, {
					email: address,
					passwordHash,
					data,
					now: ctx.now(),
					confirmed: autoconfirm,
				})
				if (autoconfirm) return { id } as LoadedUser
				if (pkce) await createFlowState(ctx, trx, id, pkce, 'email/signup')
				return { id } as LoadedUser
			})
		} catch (error) {
			if (isUniqueViolation(error))
				throw unprocessable('user_already_exists', 'User already registered')
			throw error
		}
		if (autoconfirm) {
			const id = user.id
			return json(
				await ctx.db
					.transaction()
					.execute((trx) => issueSession(ctx, trx, id, 'password', request)),
			)
		}
	} else if (pkce) {
		await createFlowState(ctx, ctx.db, user.id, pkce, 'email/signup')
	}

	// Not autoconfirmed: mail the confirmation link, answer with the user and no session.
	await sendLinkMail(ctx, user.id, 'signup', { redirectTo, pkce: Boolean(pkce) })
	const fresh = (await findUserByEmail(ctx.db, address))!
	return json(
		fresh.invited_at ? { ...userJson(fresh), user_metadata: {}, identities: [] } : userJson(fresh),
	)
}

/** What an already-registered address gets when autoconfirm is off: a plausible new user. */
function lookalikeUser(ctx: AuthContext, email: string, data: Record<string, unknown>) {
	const now = ctx.now().toISOString()
	return {
		id: crypto.randomUUID(),
		aud: 'authenticated',
		role: '',
		email,
		email_confirmed_at: null,
		phone: '',
		confirmation_sent_at: now,
		confirmed_at: null,
		last_sign_in_at: null,
		app_metadata: { provider: 'email', providers: ['email'] },
		user_metadata: data,
		identities: [],
		created_at: now,
		updated_at: now,
		is_anonymous: false,
	}
}
