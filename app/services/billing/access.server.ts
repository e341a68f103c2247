import type { Kysely } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import { isOwner, type AccountContext } from '../../context.server.ts'
import { forbidden } from '../../utils/http-errors.server.ts'

/**
 * SPEC.md section 6: only owners access billing. Every billing action calls
 * this (not only the screens), so team admins and editors get 403 whatever
 * they post. Returns the account id.
 */
export function assertBillingOwner(account: AccountContext | null): string {
	if (!account?.accountId) forbidden('Sign in first.')
	if (!isOwner(account)) forbidden('Only the account owner manages billing.')
	return account.accountId
}

/** The email of the account's owner (what a team member is shown on billing screens). */
export async function findBillingOwnerEmail(db: Kysely<DB>, accountId: string) {
	const row = await db
		.selectFrom('auth.users')
		.select('email')
		.where('id', '=', accountId)
		.executeTakeFirst()
	return row?.email ?? null
}
