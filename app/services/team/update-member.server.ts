import { db } from '../../../db/index.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { findWorkspaces } from '../workspaces/find-workspace.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import { findTeamMember } from './find-team-member.server.ts'
import { saveWorkspaceAccess, storedScopes } from './member-access.server.ts'
import type { MemberAccess } from './schemas.ts'

/**
 * Changes a member's (or a pending invitation's) role, workspaces and scopes. The
 * request context is loaded per request, so the member's next request sees it.
 */
export async function updateMember(
	account: ActingAccount,
	memberId: unknown,
	access: MemberAccess,
) {
	const member = await findTeamMember(account, memberId, ['invited', 'active'])
	const workspaces = await findWorkspaces(account, access.workspaceIds)
	assertCanManageTeam(account)
	await db.transaction().execute(async (trx) => {
		await trx
			.updateTable('team_members')
			.set({
				role: access.role,
				access_all_workspaces: access.accessAllWorkspaces,
				scopes: storedScopes(access),
				updated_at: new Date(),
			})
			.where('id', '=', member.id)
			.where('user_id', '=', account.accountId)
			.execute()
		await saveWorkspaceAccess(
			trx,
			member.id,
			access.accessAllWorkspaces ? [] : workspaces.map((w) => w.id),
		)
	})
	return { email: member.email }
}
