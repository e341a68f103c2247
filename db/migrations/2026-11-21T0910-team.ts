import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Workspaces and team members (issue 4), beyond 2026-11-21T0810:
// - team_members.scopes holds only the grantable scopes; an admin's 'all' comes from its role.
// - a user is an active member of at most one team (profiles.primary_user_id names one owner),
//   which replaces the plain index on member_user_id.
// - last_sent_at: when the invitation mail last went out (resend).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table team_members
	add constraint team_members_scopes_check
	check (scopes <@ array['domain-management:read', 'domain-management:write']::text[]);
alter table team_members add column last_sent_at timestamptz;
create unique index team_members_active_member_key on team_members (member_user_id) where status = 'active';
drop index team_members_member_user_id_idx;
create index team_members_owner_status_idx on team_members (user_id, status);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop index team_members_owner_status_idx;
create index team_members_member_user_id_idx on team_members (member_user_id) where status = 'active';
drop index team_members_active_member_key;
alter table team_members drop column last_sent_at;
alter table team_members drop constraint team_members_scopes_check;
`,
		)
		.execute(db)
}
