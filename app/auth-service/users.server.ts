import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import type { AuthIdentities, AuthUsers } from '../../db/schema.ts'
import type { Executor } from './context.server.ts'

export type UserRow = Selectable<AuthUsers>
type IdentityRow = Selectable<AuthIdentities>
/** A factor as loaded with its user (dates as JSON strings) or read from its table (Dates). */
export type FactorRow = {
	id: string
	friendly_name: string | null
	factor_type: string
	status: string
	created_at: Date | string
	updated_at: Date | string
	last_challenged_at: Date | string | null
}
/** A user row with its identities and MFA factors (their dates arrive as JSON strings). */
export type LoadedUser = UserRow & { identities: IdentityRow[]; factors: FactorRow[] }

export const AUDIENCE = 'authenticated'
export const DEFAULT_ROLE = 'authenticated'

function userQuery(db: Executor) {
	return db
		.selectFrom('auth.users as u')
		.selectAll('u')
		.select((eb) =>
			jsonArrayFrom(
				eb
					.selectFrom('auth.identities as i')
					.selectAll('i')
					.whereRef('i.user_id', '=', 'u.id')
					.orderBy('i.created_at', 'asc'),
			).as('identities'),
		)
		.select((eb) =>
			jsonArrayFrom(
				eb
					.selectFrom('auth.mfa_factors as f')
					.select([
						'f.id',
						'f.friendly_name',
						'f.factor_type',
						'f.status',
						'f.created_at',
						'f.updated_at',
						'f.last_challenged_at',
					])
					.whereRef('f.user_id', '=', 'u.id')
					.orderBy('f.created_at', 'asc'),
			).as('factors'),
		)
		.where('u.deleted_at', 'is', null)
}

export async function findUserById(
	db: Executor,
	id: string,
	options: { forUpdate?: boolean } = {},
) {
	if (!isUuid(id)) return undefined
	let query = userQuery(db).where('u.id', '=', id)
	if (options.forUpdate) query = query.forUpdate('u')
	return (await query.executeTakeFirst()) as LoadedUser | undefined
}

export async function findUserByEmail(
	db: Executor,
	email: string,
	options: { forUpdate?: boolean } = {},
) {
	let query = userQuery(db)
		.where('u.email', '=', email.toLowerCase())
		.where('u.is_sso_user', '=', false)
	if (options.forUpdate) query = query.forUpdate('u')
	return (await query.executeTakeFirst()) as LoadedUser | undefined
}

export type TokenColumn =
	'confirmation_token' | 'recovery_token' | 'email_change_token_current' | 'email_change_token_new'

export async function findUserByToken(db: Executor, columns: TokenColumn[], hash: string) {
	if (!hash) return undefined
	return (await userQuery(db)
		.where((eb) => eb.or(columns.map((column) => eb(`u.${column}`, '=', hash))))
		.forUpdate('u')
		.executeTakeFirst()) as LoadedUser | undefined
}

export async function listUsers(db: Executor, page: number, perPage: number, filter?: string) {
	let query = userQuery(db).where('u.aud', '=', AUDIENCE)
	let count = db
		.selectFrom('auth.users')
		.select((eb) => eb.fn.countAll<number>().as('count'))
		.where('deleted_at', 'is', null)
		.where('aud', '=', AUDIENCE)
	if (filter) {
		const pattern = `%${filter.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
		query = query.where('u.email', 'ilike', pattern)
		count = count.where('email', 'ilike', pattern)
	}
	const [rows, total] = await Promise.all([
		query
			.orderBy('u.created_at', 'desc')
			.orderBy('u.id', 'desc')
			.limit(perPage)
			.offset((page - 1) * perPage)
			.execute(),
		count.executeTakeFirstOrThrow(),
	])
	return { users: rows as LoadedUser[], total: Number(total.count) }
}

export function isUuid(value: string) {
	return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}

function iso(value: Date | string | null | undefined) {
	if (value === null || value === undefined) return null
	return new Date(value).toISOString()
}

function metadata(value: unknown): Record<string, unknown> {
	return value && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: {}
}

/** Supabase's User JSON (null timestamps of optional fields are left out, as GoTrue does). */
export function userJson(user: LoadedUser) {
	const optional = (key: string, value: unknown) =>
		value === null || value === undefined || value === '' ? {} : { [key]: value }
	return {
		id: user.id,
		aud: user.aud ?? '',
		role: user.role ?? '',
		email: user.email ?? '',
		email_confirmed_at: iso(user.email_confirmed_at),
		...optional('invited_at', iso(user.invited_at)),
		phone: user.phone ?? '',
		...optional('phone_confirmed_at', iso(user.phone_confirmed_at)),
		...optional('confirmation_sent_at', iso(user.confirmation_sent_at)),
		confirmed_at: iso(user.confirmed_at),
		...optional('recovery_sent_at', iso(user.recovery_sent_at)),
		...optional('new_email', user.email_change),
		...optional('email_change_sent_at', iso(user.email_change_sent_at)),
		last_sign_in_at: iso(user.last_sign_in_at),
		app_metadata: metadata(user.raw_app_meta_data),
		user_metadata: metadata(user.raw_user_meta_data),
		identities: (user.identities ?? []).map(identityJson),
		// GoTrue leaves `factors` out when there are none
		...(user.factors?.length ? { factors: user.factors.map(factorJson) } : {}),
		created_at: iso(user.created_at),
		updated_at: iso(user.updated_at),
		...optional('banned_until', iso(user.banned_until)),
		...optional('deleted_at', iso(user.deleted_at)),
		is_anonymous: user.is_anonymous,
	}
}

export type UserJson = ReturnType<typeof userJson>

/** Supabase's Factor JSON (never the secret). */
export function factorJson(factor: FactorRow) {
	return {
		id: factor.id,
		friendly_name: factor.friendly_name ?? '',
		factor_type: factor.factor_type,
		status: factor.status,
		created_at: iso(factor.created_at),
		updated_at: iso(factor.updated_at),
		...(factor.last_challenged_at ? { last_challenged_at: iso(factor.last_challenged_at) } : {}),
	}
}

function identityJson(identity: IdentityRow) {
	return {
		identity_id: identity.id,
		id: identity.provider_id,
		user_id: identity.user_id,
		identity_data: metadata(identity.identity_data),
		provider: identity.provider,
		last_sign_in_at: iso(identity.last_sign_in_at),
		created_at: iso(identity.created_at),
		updated_at: iso(identity.updated_at),
		...(identity.email ? { email: identity.email } : {}),
	}
}

export function isBanned(user: UserRow, now: Date) {
	return user.banned_until !== null && user.banned_until.getTime() > now.getTime()
}

export function hasPassword(user: UserRow) {
	return Boolean(user.encrypted_password)
}

/** Inserts a user with its email identity (Supabase's shape of an email sign-up). */
export async function insertEmailUser(
	db: Executor,
	values: {
		email: string
		passwordHash: string
		data: Record<string, unknown>
		now: Date
		confirmed?: boolean
		invited?: boolean
		id?: string
		role?: string
		appMetadata?: Record<string, unknown>
		phone?: string
		bannedUntil?: Date | null
	},
) {
	const id = values.id ?? randomUUID()
	const providers = values.email ? ['email'] : []
	if (values.phone) providers.push('phone')
	const userMetadata = { ...values.data, ...(values.confirmed ? { email_verified: true } : {}) }
	await db
		.insertInto('auth.users')
		.values({
			instance_id: '00000000-0000-0000-0000-000000000000',
			id,
			aud: AUDIENCE,
			role: values.role ?? DEFAULT_ROLE,
			email: values.email || null,
			phone: values.phone || null,
			encrypted_password: values.passwordHash,
			email_confirmed_at: values.confirmed ? values.now : null,
			invited_at: values.invited ? values.now : null,
			raw_app_meta_data: JSON.stringify({
				provider: providers[0] ?? 'email',
				providers,
				...values.appMetadata,
			}),
			raw_user_meta_data: JSON.stringify(userMetadata),
			banned_until: values.bannedUntil ?? null,
			created_at: values.now,
			updated_at: values.now,
			is_sso_user: false,
			is_anonymous: false,
		})
		.execute()
	if (values.email) {
		const identityData: Record<string, unknown> = {
			sub: id,
			email: values.email,
			email_verified: Boolean(values.confirmed),
			phone_verified: false,
		}
		for (const [key, value] of Object.entries(values.data))
			if (!(key in identityData)) identityData[key] = value
		await db
			.insertInto('auth.identities')
			.values({
				id: randomUUID(),
				provider_id: id,
				user_id: id,
				identity_data: JSON.stringify(identityData),
				provider: 'email',
				last_sign_in_at: values.now,
				created_at: values.now,
				updated_at: values.now,
			})
			.execute()
	}
	if (values.phone) {
		await db
			.insertInto('auth.identities')
			.values({
				id: randomUUID(),
				provider_id: id,
				user_id: id,
				identity_data: JSON.stringify({
					sub: id,
					phone: values.phone,
					email_verified: false,
					phone_verified: false,
				}),
				provider: 'phone',
				last_sign_in_at: values.now,
				created_at: values.now,
				updated_at: values.now,
			})
			.execute()
	}
	return id
}

/** Merges `updates` into a JSON object column; null values remove keys (Supabase's rule). */
export function mergeMetadata(current: unknown, updates: Record<string, unknown>) {
	const merged = { ...metadata(current) }
	for (const [key, value] of Object.entries(updates)) {
		if (value === null) delete merged[key]
		else merged[key] = value
	}
	return merged
}

/** Marks the email confirmed (user_metadata.email_verified, identity email_verified). */
export async function confirmEmail(db: Executor, user: UserRow, now: Date) {
	await db
		.updateTable('auth.users')
		.set({
			confirmation_token: '',
			email_confirmed_at: user.email_confirmed_at ?? now,
			raw_user_meta_data: JSON.stringify(
				mergeMetadata(user.raw_user_meta_data, { email_verified: true }),
			),
			updated_at: now,
		})
		.where('id', '=', user.id)
		.execute()
	await setIdentityEmail(db, user.id, { email_verified: true }, now)
}

export async function setIdentityEmail(
	db: Executor,
	userId: string,
	updates: Record<string, unknown>,
	now: Date,
) {
	const identity = await db
		.selectFrom('auth.identities')
		.select(['id', 'identity_data'])
		.where('user_id', '=', userId)
		.where('provider', '=', 'email')
		.executeTakeFirst()
	if (!identity) return
	await db
		.updateTable('auth.identities')
		.set({
			identity_data: JSON.stringify(mergeMetadata(identity.identity_data, updates)),
			updated_at: now,
		})
		.where('id', '=', identity.id)
		.execute()
}
