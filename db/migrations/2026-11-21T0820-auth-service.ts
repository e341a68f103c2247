import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// What the embedded auth service needs beyond 2026-11-21T0800:
// - auth.mfa_amr_claims: Supabase's table of how a session was authenticated (the `amr` claim),
//   created only when absent so the same migration runs against a Supabase database.
// - auth.flow_state lookup by user and method (Supabase's index name).
// - auth_rate_limits (ours): fixed-window counters shared by every process (one upsert a hit).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table if not exists auth.mfa_amr_claims (
	session_id uuid not null references auth.sessions(id) on delete cascade,
	created_at timestamptz not null,
	updated_at timestamptz not null,
	authentication_method text not null,
	id uuid not null primary key,
	constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);
create index if not exists idx_user_id_auth_method on auth.flow_state (user_id, authentication_method);
create index if not exists users_email_change_token_new_idx on auth.users (email_change_token_new) where email_change_token_new is not null and email_change_token_new <> '';

create table auth_rate_limits (
	key text primary key,
	hits integer not null,
	window_start timestamptz not null
);
create index auth_rate_limits_window_start_idx on auth_rate_limits (window_start);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop table auth_rate_limits;`).execute(db)
}
