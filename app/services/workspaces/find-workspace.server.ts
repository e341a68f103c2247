import { db } from '../../../db/index.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { canUseWorkspace, type ActingAccount } from './access.server.ts'

export type Workspace = { id: string; name: string }

/**
 * A workspace of the request's account that the user may use. Anything else (another
 * account's id, a workspace outside a member's allowed set, a malformed id) is a 404.
 */
export async function findWorkspace(account: ActingAccount, workspaceId: unknown) {
	if (!isUuid(workspaceId)) notFound('This workspace')
	const row = await db
		.selectFrom('workspaces')
		.select(['id', 'name'])
		.where('id', '=', workspaceId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!row || !canUseWorkspace(account, row.id)) notFound('This workspace')
	return row
}

/** Every id must name a workspace of the account the user may use; else a 404. */
export async function findWorkspaces(account: ActingAccount, workspaceIds: readonly unknown[]) {
	const ids = [...new Set(workspaceIds)]
	if (ids.length === 0) return []
	if (!ids.every(isUuid)) notFound('This workspace')
	const rows = await db
		.selectFrom('workspaces')
		.select(['id', 'name'])
		.where('id', 'in', ids as string[])
		.where('user_id', '=', account.accountId)
		.execute()
	if (rows.length !== ids.length || !rows.every((r) => canUseWorkspace(account, r.id))) {
		notFound('This workspace')
	}
	return rows
}

/** Postgres unique_violation on the (account, lower(name)) index. */
export function isDuplicateName(error: unknown) {
	return (
		typeof error === 'object' &&
		error !== null &&
		(error as { code?: string }).code === '23505' &&
		String((error as { constraint?: string }).constraint ?? '').startsWith('workspaces_user_name')
	)
}
