import { db } from '../../../db/index.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import { findTeamMember } from './find-team-member.server.ts'

/** Withdraws a pending invitation: its link then says it was revoked. */
export async function revokeInvitation(account: ActingAccount, memberId: unknown) {
	const invitation = await findTeamMember(account, memberId, ['invited'])
	assertCanManageTeam(account)
	await db
		.updateTable('team_members')
		.set({ status: 'revoked', updated_at: new Date() })
		.where('id', '=', invitation.id)
		.where('user_id', '=', account.accountId)
		.where('status', '=', 'invited')
		.execute()
	return { email: invitation.email }
}
