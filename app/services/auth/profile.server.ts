import { db } from '../../../db/index.server.ts'

export async function createProfile(userId: string, fullName: string) {
	await db
		.insertInto('profiles')
		.values({ user_id: userId, full_name: fullName })
		.onConflict((oc) =>
			oc.column('user_id').doUpdateSet({ full_name: fullName, updated_at: new Date() }),
		)
		.execute()
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
