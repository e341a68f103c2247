import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Secure email change (both addresses confirm): Supabase's auth.users keeps the current address's
// token and how many of the two links were used (0 or 1; GoTrue's check allows up to 2). Added only
// where absent, so the same migration runs against a Supabase database.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table auth.users add column if not exists email_change_token_current varchar(255) default '';
alter table auth.users add column if not exists email_change_confirm_status smallint default 0
	check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2);
create index if not exists users_email_change_token_current_idx on auth.users (email_change_token_current) where email_change_token_current is not null and email_change_token_current <> '';
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop index if exists auth.users_email_change_token_current_idx;
alter table auth.users drop column email_change_confirm_status;
alter table auth.users drop column email_change_token_current;
`,
		)
		.execute(db)
}
