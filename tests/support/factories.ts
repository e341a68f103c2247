import { randomUUID } from 'node:crypto'
import type { Database } from '../../db/index.server.ts'

/** An auth user row (as the auth service would store it) with its profile. */
export async function insertUser(
	db: Database,
	options: { email?: string; fullName?: string } = {},
) {
	const id = randomUUID()
	const email = options.email ?? `user-${id.slice(0, 8)}@example.com`
	const now = new Date()
	await db
		.insertInto('auth.users')
		.values({
			id,
			aud: 'authenticated',
			role: 'authenticated',
			email,
			encrypted_password: '',
			email_confirmed_at: now,
			raw_app_meta_data: JSON.stringify({ provider: 'email', providers: ['email'] }),
			raw_user_meta_data: JSON.stringify({}),
			created_at: now,
			updated_at: now,
		})
		.execute()
	await db
		.insertInto('profiles')
		.values({ user_id: id, full_name: options.fullName ?? 'Test User' })
		.execute()
	return { id, email }
}

export async function insertSubscription(
	db: Database,
	userId: string,
	options: { plan?: number; status?: string; expiresInDays?: number } = {},
) {
	const expire = new Date(Date.now() + (options.expiresInDays ?? 30) * 86_400_000)
	await db
		.insertInto('subscriptions')
		.values({
			user_id: userId,
			active_plan: options.plan ?? 1,
			status: options.status ?? 'active',
			billing_date: new Date(),
			expire_date: expire,
		})
		.execute()
}
