import type { Kysely } from 'kysely'
import type { DB } from './schema.ts'

// Plan ids and names as SPEC.md gives them; prices and credits are defaults admins change later.
export const DEFAULT_PRICE_PLANS = [
	{
		id: 1,
		name: 'Monthly Starter',
		interval: 'month',
		tier: 'starter',
		price_cents: 4_900,
		monthly_credits: 2_000,
	},
	{
		id: 2,
		name: 'Monthly Unlimited',
		interval: 'month',
		tier: 'unlimited',
		price_cents: 14_900,
		monthly_credits: 10_000,
	},
	{
		id: 3,
		name: 'Yearly Starter',
		interval: 'year',
		tier: 'starter',
		price_cents: 47_000,
		monthly_credits: 2_000,
	},
	{
		id: 4,
		name: 'Yearly Unlimited',
		interval: 'year',
		tier: 'unlimited',
		price_cents: 143_000,
		monthly_credits: 10_000,
	},
] as const

export async function seedPricePlans(db: Kysely<DB>) {
	await db
		.insertInto('price_plans')
		.values(DEFAULT_PRICE_PLANS.map((p) => ({ ...p })))
		.onConflict((oc) => oc.column('id').doNothing())
		.execute()
}

type AuthAdmin = {
	createUser(attributes: {
		email: string
		password: string
		email_confirm: boolean
	}): Promise<{ data: { user: { id: string } | null }; error: { message: string } | null }>
}

export const GENERATED_ADMIN_EMAIL = 'admin@leadsmith.local'

/**
 * Makes sure a platform admin exists. With ADMIN_EMAIL that user (created when
 * missing) gets the admin role; without it, an admin is generated the first
 * time only, and its password returned for printing.
 */
export async function ensurePlatformAdmin(
	db: Kysely<DB>,
	auth: AuthAdmin,
	options: { email?: string; password?: string; generatePassword: () => string },
): Promise<{ email: string; password: string; generated: boolean } | null> {
	if (!options.email) {
		const existing = await db
			.selectFrom('roles')
			.select('user_id')
			.where('role', '=', 'admin')
			.executeTakeFirst()
		if (existing) return null
	}
	const email = (options.email ?? GENERATED_ADMIN_EMAIL).toLowerCase()
	const found = await db
		.selectFrom('auth.users')
		.select('id')
		.where('email', '=', email)
		.executeTakeFirst()
	let userId = found?.id
	let password = options.password ?? ''
	if (!userId) {
		password = options.password ?? options.generatePassword()
		const { data, error } = await auth.createUser({ email, password, email_confirm: true })
		if (error || !data.user)
			throw new Error(`Could not create the platform admin: ${error?.message}`)
		userId = data.user.id
	}
	await db
		.insertInto('profiles')
		.values({ user_id: userId, full_name: 'Platform admin' })
		.onConflict((oc) => oc.column('user_id').doNothing())
		.execute()
	const role = await db
		.insertInto('roles')
		.values({ user_id: userId, role: 'admin' })
		.onConflict((oc) => oc.columns(['user_id', 'role']).doNothing())
		.returning('id')
		.executeTakeFirst()
	if (!role || found) return null
	return { email, password, generated: !options.email }
}
