import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// The auth tables use Supabase's names and types and are created only when
// absent, so the same migrations run against a Supabase database.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create schema if not exists auth;

create table if not exists auth.users (
	instance_id uuid,
	id uuid primary key,
	aud varchar(255),
	role varchar(255),
	email varchar(255),
	encrypted_password varchar(255),
	email_confirmed_at timestamptz,
	invited_at timestamptz,
	confirmation_token varchar(255),
	confirmation_sent_at timestamptz,
	recovery_token varchar(255),
	recovery_sent_at timestamptz,
	email_change_token_new varchar(255),
	email_change varchar(255),
	email_change_sent_at timestamptz,
	last_sign_in_at timestamptz,
	raw_app_meta_data jsonb,
	raw_user_meta_data jsonb,
	is_super_admin boolean,
	created_at timestamptz,
	updated_at timestamptz,
	phone text unique default null,
	phone_confirmed_at timestamptz,
	confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
	banned_until timestamptz,
	reauthentication_token varchar(255) default '',
	is_sso_user boolean not null default false,
	deleted_at timestamptz,
	is_anonymous boolean not null default false
);
create unique index if not exists users_email_partial_key on auth.users (email) where (is_sso_user = false);
create index if not exists users_confirmation_token_idx on auth.users (confirmation_token) where confirmation_token is not null and confirmation_token <> '';
create index if not exists users_recovery_token_idx on auth.users (recovery_token) where recovery_token is not null and recovery_token <> '';

create table if not exists auth.sessions (
	id uuid primary key,
	user_id uuid not null references auth.users(id) on delete cascade,
	created_at timestamptz,
	updated_at timestamptz,
	factor_id uuid,
	aal text,
	not_after timestamptz,
	refreshed_at timestamp,
	user_agent text,
	ip inet,
	tag text
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);

create table if not exists auth.refresh_tokens (
	instance_id uuid,
	id bigserial primary key,
	token varchar(255) unique,
	user_id varchar(255),
	revoked boolean,
	created_at timestamptz,
	updated_at timestamptz,
	parent varchar(255),
	session_id uuid references auth.sessions(id) on delete cascade
);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index if not exists refresh_tokens_parent_idx on auth.refresh_tokens (parent);

create table if not exists auth.identities (
	provider_id text not null,
	user_id uuid not null references auth.users(id) on delete cascade,
	identity_data jsonb not null,
	provider text not null,
	last_sign_in_at timestamptz,
	created_at timestamptz,
	updated_at timestamptz,
	email text generated always as (lower(identity_data->>'email')) stored,
	id uuid primary key default gen_random_uuid(),
	unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);

create table if not exists auth.flow_state (
	id uuid primary key,
	user_id uuid,
	auth_code text not null,
	code_challenge_method text not null,
	code_challenge text not null,
	provider_type text not null,
	provider_access_token text,
	provider_refresh_token text,
	created_at timestamptz,
	updated_at timestamptz,
	authentication_method text not null,
	auth_code_issued_at timestamptz
);
create index if not exists flow_state_auth_code_idx on auth.flow_state (auth_code);

-- Ours, not Supabase's: the embedded service's signing keys (private part encrypted with APP_SECRET)
-- and the local mailbox used when no SMTP server is configured.
create table auth_signing_keys (
	kid text primary key,
	alg text not null default 'ES256',
	public_jwk jsonb not null,
	private_key text not null,
	created_at timestamptz not null default now()
);

create table mailbox (
	id bigint generated always as identity primary key,
	to_address text not null,
	subject text not null,
	text_body text not null,
	html_body text,
	created_at timestamptz not null default now()
);
create index mailbox_to_address_idx on mailbox (lower(to_address), id desc);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop table mailbox; drop table auth_signing_keys;`).execute(db)
}
