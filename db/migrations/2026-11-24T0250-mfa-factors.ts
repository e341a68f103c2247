import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// TOTP two-factor authentication for the embedded auth service: Supabase's auth.mfa_factors and
// auth.mfa_challenges (created only when absent, so the same migration runs against a Supabase
// database; Supabase's enum columns are text here). The TOTP secret is stored encrypted with
// APP_SECRET. last_totp_step (ours, added only where absent) keeps a code from being used twice.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table if not exists auth.mfa_factors (
	id uuid primary key,
	user_id uuid not null references auth.users(id) on delete cascade,
	friendly_name text,
	factor_type text not null,
	status text not null,
	created_at timestamptz not null,
	updated_at timestamptz not null,
	secret text,
	phone text,
	last_challenged_at timestamptz unique
);
create index if not exists factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);
create unique index if not exists mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id) where trim(friendly_name) <> '';

create table if not exists auth.mfa_challenges (
	id uuid primary key,
	factor_id uuid not null references auth.mfa_factors(id) on delete cascade,
	created_at timestamptz not null,
	verified_at timestamptz,
	ip_address inet not null,
	otp_code text
);
create index if not exists mfa_challenge_created_at_idx on auth.mfa_challenges (created_at desc);

alter table auth.mfa_factors add column if not exists last_totp_step bigint;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop table auth.mfa_challenges; drop table auth.mfa_factors;`).execute(db)
}
