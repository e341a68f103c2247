import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'

/**
 * The profile of a user who just signed up. Without a session (email confirmation on) the
 * sign-up may have answered with a look-alike user for a registered address: then there is no
 * such user and nothing is written, and an existing profile is never overwritten by whoever
 * typed that address.
 */
export async function createProfile(
	userId: string,
	fullName: string,
	{ signedIn = true }: { signedIn?: boolean } = {},
) {
	await sql`
		insert into profiles (user_id, full_name)
		select id, ${fullName} from auth.users where id = ${userId}
		on conflict (user_id) do ${
			signedIn ? sql`update set full_name = excluded.full_name, updated_at = now()` : sql`nothing`
		}
	`.execute(db)
}

export async function getProfile(userId: string) {
	return db
		.selectFrom('profiles')
		.select(['full_name', 'company', 'is_ltd', 'created_at'])
		.where('user_id', '=', userId)
		.executeTakeFirst()
}

export async function updateProfile(
	userId: string,
	values: { fullName: string; company?: string },
) {
	await db
		.insertInto('profiles')
		.values({ user_id: userId, full_name: values.fullName, company: values.company ?? null })
		.onConflict((oc) =>
			oc.column('user_id').doUpdateSet({
				full_name: values.fullName,
				company: values.company ?? null,
				updated_at: new Date(),
			}),
		)
		.execute()
}

export async function isPlatformStaff(userId: string) {
	const row = await db
		.selectFrom('roles')
		.select('role')
		.where('user_id', '=', userId)
		.orderBy('created_at')
		.executeTakeFirst()
	return row?.role ?? null
}
