import { db } from '../../../db/index.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { assertCanManageWorkspaces, type ActingAccount } from './access.server.ts'
import { findWorkspace, isDuplicateName, type Workspace } from './find-workspace.server.ts'

export async function renameWorkspace(
	account: ActingAccount,
	workspaceId: unknown,
	input: { name: string },
): Promise<Workspace> {
	const workspace = await findWorkspace(account, workspaceId)
	assertCanManageWorkspaces(account)
	try {
		return await db
			.updateTable('workspaces')
			.set({ name: input.name, updated_at: new Date() })
			.where('id', '=', workspace.id)
			.where('user_id', '=', account.accountId)
			.returning(['id', 'name'])
			.executeTakeFirstOrThrow()
	} catch (error) {
		if (isDuplicateName(error)) {
			throw new FormError(`A workspace named “${input.name}” already exists.`, 'name')
		}
		throw error
	}
}
