import { db } from '../../../db/index.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import { findTeamMember } from './find-team-member.server.ts'

/**
 * Removes a member from the team: the membership is revoked and the member's profile no
 * longer points to the owner, so from its next request it is back in its own account.
 */
export async function removeMember(account: ActingAccount, memberId: unknown) {
	const member = await findTeamMember(account, memberId, ['active'])
	assertCanManageTeam(account)
	await db.transaction().execute(async (trx) => {
		await trx
			.updateTable('team_members')
			.set({ status: 'revoked', updated_at: new Date() })
			.where('id', '=', member.id)
			.where('user_id', '=', account.accountId)
			.execute()
		if (member.member_user_id) {
			await trx
				.updateTable('profiles')
				.set({ primary_user_id: null, updated_at: new Date() })
				.where('user_id', '=', member.member_user_id)
				.where('primary_user_id', '=', account.accountId)
				.execute()
		}
	})
	return { email: member.email }
}
