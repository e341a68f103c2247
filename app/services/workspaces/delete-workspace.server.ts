import { db } from '../../../db/index.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { assertCanManageWorkspaces, type ActingAccount } from './access.server.ts'
import {
	countWorkspaceContents,
	describeContents,
	isEmpty,
} from './count-workspace-contents.server.ts'
import { findWorkspace, type Workspace } from './find-workspace.server.ts'

/**
 * Deletes an empty workspace. One that still holds lists, domains, inbox orders or
 * inboxes is refused with a message saying what it holds (the foreign keys restrict
 * too, for a row added in between).
 */
export async function deleteWorkspace(
	account: ActingAccount,
	workspaceId: unknown,
): Promise<Workspace> {
	const workspace = await findWorkspace(account, workspaceId)
	assertCanManageWorkspaces(account)
	const contents = (await countWorkspaceContents(account.accountId, [workspace.id])).get(
		workspace.id,
	)
	if (contents && !isEmpty(contents)) {
		throw new FormError(
			`“${workspace.name}” still holds ${describeContents(contents)}. Move or delete them first.`,
		)
	}
	try {
		await db
			.deleteFrom('workspaces')
			.where('id', '=', workspace.id)
			.where('user_id', '=', account.accountId)
			.execute()
	} catch (error) {
		if ((error as { code?: string }).code === '23503') {
			throw new FormError(
				`“${workspace.name}” is no longer empty. Move or delete what it holds first.`,
			)
		}
		throw error
	}
	return workspace
}
