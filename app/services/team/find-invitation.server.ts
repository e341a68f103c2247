import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { hashInvitationToken, isWellFormedToken } from './invitation-token.server.ts'
import type { GrantableScope, TeamRoleName } from './schemas.ts'

export type InvitationState = 'valid' | 'expired' | 'revoked' | 'used'

export type Invitation = {
	id: string
	state: InvitationState
	email: string
	role: TeamRoleName
	ownerId: string
	ownerEmail: string
	ownerName: string | null
	accessAllWorkspaces: boolean
	workspaces: string[]
	scopes: GrantableScope[]
	expiresAt: string | null
}

/** The invitation a link's token names, with its state; null for an unknown token. */
export async function findInvitation(token: unknown): Promise<Invitation | null> {
	if (!isWellFormedToken(token)) return null
	const row = await db
		.selectFrom('team_members as t')
		.innerJoin('auth.users as o', 'o.id', 't.user_id')
		.leftJoin('profiles as p', 'p.user_id', 't.user_id')
		.where('t.invitation_token_hash', '=', hashInvitationToken(token))
		.select((eb) => [
			't.id',
			't.email',
			't.role',
			't.status',
			't.user_id as owner_id',
			'o.email as owner_email',
			'p.full_name as owner_name',
			't.access_all_workspaces',
			't.scopes',
			't.expires_at',
			't.accepted_at',
			sql<boolean>`coalesce(t.expires_at < now(), true)`.as('expired'),
			eb
				.selectFrom('team_member_workspace_acess as a')
				.innerJoin('workspaces as w', 'w.id', 'a.workspace_id')
				.whereRef('a.team_member_id', '=', 't.id')
				.whereRef('w.user_id', '=', 't.user_id')
				.select(sql<string[]>`coalesce(array_agg(w.name order by lower(w.name)), '{}')`.as('n'))
				.as('workspaces'),
		])
		.executeTakeFirst()
	if (!row) return null
	const state: InvitationState =
		row.status === 'revoked'
			? 'revoked'
			: row.status === 'active' || row.accepted_at
				? 'used'
				: row.expired
					? 'expired'
					: 'valid'
	return {
		id: row.id,
		state,
		email: row.email,
		role: row.role as TeamRoleName,
		ownerId: row.owner_id,
		ownerEmail: row.owner_email ?? '',
		ownerName: row.owner_name?.trim() || null,
		accessAllWorkspaces: row.access_all_workspaces,
		workspaces: row.workspaces ?? [],
		scopes: row.scopes as GrantableScope[],
		expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
	}
}
