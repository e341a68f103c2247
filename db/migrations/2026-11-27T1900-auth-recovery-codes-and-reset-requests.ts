import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 32 (decisions 0056, 0057). Two-factor recovery codes: only their HMAC is kept, each
// counts once (used_at), and a new set replaces the old one. Password reset requests: when an
// address last asked, whether or not it has an account, so a second request within a minute
// gets the same truthful answer ("already sent") for every address.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table two_factor_recovery_codes (
	user_id uuid not null references auth.users(id) on delete cascade,
	code_hash text not null,
	used_at timestamptz,
	created_at timestamptz not null default now(),
	primary key (user_id, code_hash)
);

create table password_reset_requests (
	email_key text primary key,
	requested_at timestamptz not null
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw('drop table password_reset_requests; drop table two_factor_recovery_codes;')
		.execute(db)
}
