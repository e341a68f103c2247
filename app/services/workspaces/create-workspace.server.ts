import { db } from '../../../db/index.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { assertCanManageWorkspaces, type ActingAccount } from './access.server.ts'
import { isDuplicateName, type Workspace } from './find-workspace.server.ts'

/**
 * A new workspace in the account (owner and team admins). A team admin limited to a
 * set of workspaces gets access to the one it creates, or it could not see it.
 */
export async function createWorkspace(
	account: ActingAccount,
	input: { name: string },
): Promise<Workspace> {
	assertCanManageWorkspaces(account)
	try {
		return await db.transaction().execute(async (trx) => {
			const workspace = await trx
				.insertInto('workspaces')
				.values({ user_id: account.accountId, name: input.name })
				.returning(['id', 'name'])
				.executeTakeFirstOrThrow()
			if (account.isTeamMember && !account.accessAllWorkspaces && account.teamMemberId) {
				await trx
					.insertInto('team_member_workspace_acess')
					.values({ team_member_id: account.teamMemberId, workspace_id: workspace.id })
					.execute()
			}
			return workspace
		})
	} catch (error) {
		if (isDuplicateName(error)) {
			throw new FormError(`A workspace named “${input.name}” already exists.`, 'name')
		}
		throw error
	}
}
