import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// The public API (issue 37, decision 0093). A token belongs to the account (`account_id`, the
// owner) and to the person who made it (`created_by`): every request resolves that person's
// current rights, so a token never does more than its maker may do now. Only a SHA-256 of the
// token is kept (the token is 32 random bytes: no slow hash needed); `prefix` is its shown start.
// `workspace_ids` null: every workspace its maker may use.
// api_idempotency_keys: the first answer to a POST with an Idempotency-Key, per account and key,
// kept 24 h; `status` null while the first request runs.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table api_tokens (
	id uuid primary key default gen_random_uuid(),
	account_id uuid not null references auth.users (id) on delete cascade,
	created_by uuid not null references auth.users (id) on delete cascade,
	name text not null,
	prefix text not null,
	token_hash text not null unique,
	scopes text[] not null,
	workspace_ids uuid[],
	created_at timestamptz not null default now(),
	last_used_at timestamptz,
	revoked_at timestamptz
);
create index api_tokens_account_idx on api_tokens (account_id, created_at desc);

create table api_idempotency_keys (
	account_id uuid not null references auth.users (id) on delete cascade,
	key text not null,
	fingerprint text not null,
	status integer,
	body text,
	content_type text,
	created_at timestamptz not null default now(),
	primary key (account_id, key)
);
create index api_idempotency_keys_created_idx on api_idempotency_keys (created_at);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`drop table api_idempotency_keys; drop table api_tokens`.execute(db)
}
