import type { Transaction } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import { GRANTABLE_SCOPES, type GrantableScope, type MemberAccess } from './schemas.ts'

/**
 * What is stored for a member's scopes: none for an admin (its role gives 'all');
 * for an editor the granted ones, where changing implies viewing.
 */
export function storedScopes(access: MemberAccess): GrantableScope[] {
	if (access.role === 'admin') return []
	const wanted = new Set(access.scopes)
	if (wanted.has('domain-management:write')) wanted.add('domain-management:read')
	return GRANTABLE_SCOPES.filter((s) => wanted.has(s))
}

/** Replaces the member's rows in team_member_workspace_acess (as spelt). */
export async function saveWorkspaceAccess(
	trx: Transaction<DB>,
	teamMemberId: string,
	workspaceIds: readonly string[],
) {
	await trx
		.deleteFrom('team_member_workspace_acess')
		.where('team_member_id', '=', teamMemberId)
		.execute()
	if (workspaceIds.length === 0) return
	await trx
		.insertInto('team_member_workspace_acess')
		.values(workspaceIds.map((workspace_id) => ({ team_member_id: teamMemberId, workspace_id })))
		.execute()
}
