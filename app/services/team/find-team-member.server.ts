import { db } from '../../../db/index.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'

type Status = 'invited' | 'active'

/** A team member or invitation of the request's account, in one of `statuses`; else 404. */
export async function findTeamMember(
	account: ActingAccount,
	memberId: unknown,
	statuses: readonly Status[],
) {
	const what = statuses.includes('active') ? 'This team member' : 'This invitation'
	if (!isUuid(memberId)) notFound(what)
	const row = await db
		.selectFrom('team_members')
		.select([
			'id',
			'email',
			'role',
			'status',
			'member_user_id',
			'access_all_workspaces',
			'scopes',
			'expires_at',
		])
		.where('id', '=', memberId)
		.where('user_id', '=', account.accountId)
		.where('status', 'in', statuses)
		.executeTakeFirst()
	if (!row) notFound(what)
	return row
}
