import { db } from '../../../db/index.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import { findTeamMember } from './find-team-member.server.ts'
import { newInvitationToken } from './invitation-token.server.ts'
import { takeInvitationMail } from './limit-invitation-mails.server.ts'
import type { TeamRoleName } from './schemas.ts'
import { describeOwner, sendInvitationMail } from './send-invitation-mail.server.ts'

/**
 * Sends a pending invitation again with a new token and a new 7-day expiry; the
 * previous link stops working.
 */
export async function resendInvitation(account: ActingAccount, memberId: unknown) {
	const invitation = await findTeamMember(account, memberId, ['invited'])
	assertCanManageTeam(account)
	// past the hourly limit the old link stays valid and no mail goes out
	await takeInvitationMail(account.accountId, null)
	const { token, hash, expiresAt } = newInvitationToken()
	await db
		.updateTable('team_members')
		.set({
			invitation_token_hash: hash,
			expires_at: expiresAt,
			last_sent_at: new Date(),
			updated_at: new Date(),
		})
		.where('id', '=', invitation.id)
		.where('user_id', '=', account.accountId)
		.where('status', '=', 'invited')
		.execute()
	const workspaces = invitation.access_all_workspaces
		? ('all' as const)
		: (
				await db
					.selectFrom('team_member_workspace_acess as a')
					.innerJoin('workspaces as w', 'w.id', 'a.workspace_id')
					.select('w.name')
					.where('a.team_member_id', '=', invitation.id)
					.where('w.user_id', '=', account.accountId)
					.orderBy('w.name')
					.execute()
			).map((w) => w.name)
	const mailSent = await sendInvitationMail({
		to: invitation.email,
		owner: await describeOwner(account.user.id, account.user.email),
		role: invitation.role as TeamRoleName,
		workspaces,
		token,
		expiresAt,
	})
	return { email: invitation.email, mailSent }
}
