import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import type { GrantableScope, TeamRoleName } from './schemas.ts'

export type TeamEntry = {
	id: string
	email: string
	role: TeamRoleName
	accessAllWorkspaces: boolean
	workspaces: { id: string; name: string }[]
	scopes: GrantableScope[]
	invitedAt: string
	lastSentAt: string | null
	expiresAt: string | null
	expired: boolean
	acceptedAt: string | null
}

/** The owner's team: pending invitations and active members, with their workspaces. */
export async function listTeam(account: ActingAccount) {
	assertCanManageTeam(account)
	const rows = await db
		.selectFrom('team_members as t')
		.where('t.user_id', '=', account.accountId)
		.where('t.status', 'in', ['invited', 'active'])
		.select((eb) => [
			't.id',
			't.email',
			't.role',
			't.status',
			't.access_all_workspaces',
			't.scopes',
			't.invited_at',
			't.last_sent_at',
			't.expires_at',
			't.accepted_at',
			sql<boolean>`coalesce(t.expires_at < now(), false)`.as('expired'),
			eb
				.selectFrom('team_member_workspace_acess as a')
				.innerJoin('workspaces as w', 'w.id', 'a.workspace_id')
				.whereRef('a.team_member_id', '=', 't.id')
				.where('w.user_id', '=', account.accountId)
				.select(
					sql<
						{ id: string; name: string }[]
					>`coalesce(json_agg(json_build_object('id', w.id, 'name', w.name) order by lower(w.name)), '[]')`.as(
						'list',
					),
				)
				.as('workspaces'),
		])
		.orderBy(sql`lower(t.email)`)
		.execute()
	const toEntry = (r: (typeof rows)[number]): TeamEntry => ({
		id: r.id,
		email: r.email,
		role: r.role as TeamRoleName,
		accessAllWorkspaces: r.access_all_workspaces,
		workspaces: r.workspaces ?? [],
		scopes: r.scopes as GrantableScope[],
		invitedAt: new Date(r.invited_at).toISOString(),
		lastSentAt: r.last_sent_at ? new Date(r.last_sent_at).toISOString() : null,
		expiresAt: r.expires_at ? new Date(r.expires_at).toISOString() : null,
		expired: r.expired,
		acceptedAt: r.accepted_at ? new Date(r.accepted_at).toISOString() : null,
	})
	return {
		invitations: rows.filter((r) => r.status === 'invited').map(toEntry),
		members: rows.filter((r) => r.status === 'active').map(toEntry),
	}
}
