import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Abuse limits (decision 0023): the time of a counter's last hit, so failed sign-ins from one
// (email, IP) pair back off; and the team invitation mails an account sent in the current hour.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table auth_rate_limits add column last_hit_at timestamptz;

create table team_invitation_limits (
	account_id uuid primary key references auth.users(id) on delete cascade,
	mails integer not null,
	window_start timestamptz not null
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop table team_invitation_limits;
alter table auth_rate_limits drop column last_hit_at;
`,
		)
		.execute(db)
}
