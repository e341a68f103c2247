import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { insertUser } from './factories.ts'

/** A new account owner and its request context. */
export async function newOwner(options: { ltd?: boolean } = {}) {
	const user = await insertUser(db)
	if (options.ltd) {
		await db.updateTable('profiles').set({ is_ltd: true }).where('user_id', '=', user.id).execute()
	}
	return { user, account: await loadAccountContext(db, user) }
}

/** An active team member of `ownerId` with `role`, and its request context. */
export async function newTeamMember(ownerId: string, role: 'admin' | 'editor') {
	const user = await insertUser(db)
	await db
		.insertInto('team_members')
		.values({
			user_id: ownerId,
			email: user.email,
			role,
			member_user_id: user.id,
			status: 'active',
		})
		.execute()
	await db
		.updateTable('profiles')
		.set({ primary_user_id: ownerId })
		.where('user_id', '=', user.id)
		.execute()
	return { user, account: await loadAccountContext(db, user) }
}

/** The account's ledger and balance, oldest first. */
export async function ledgerOf(accountId: string) {
	const entries = await db
		.selectFrom('credits')
		.select(['delta', 'balance_after', 'reason', 'reference'])
		.where('user_id', '=', accountId)
		.orderBy('created_at')
		.execute()
	const balance = await db
		.selectFrom('credit_balances')
		.select('balance')
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	return { entries, balance: balance?.balance ?? 0 }
}

export async function auditActions(targetId: string) {
	const rows = await db
		.selectFrom('audit_log')
		.select(['action', 'actor_user_id', 'before', 'after'])
		.where('target_id', '=', targetId)
		.orderBy('created_at')
		.execute()
	return rows
}
