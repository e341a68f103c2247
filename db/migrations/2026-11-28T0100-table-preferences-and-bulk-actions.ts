import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 34 point 2 (decision 0080): a data table's columns and density remembered per user and
// table, and bulk actions as status rows a job works through with a checkpoint.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table table_preferences (
	user_id uuid not null references auth.users(id) on delete cascade,
	-- which table: 'domains', 'lists', ...
	table_key text not null,
	hidden_columns text[] not null default '{}',
	density text not null default 'comfortable' check (density in ('comfortable', 'compact')),
	updated_at timestamptz not null default now(),
	primary key (user_id, table_key)
);

create table bulk_actions (
	id uuid primary key default gen_random_uuid(),
	-- the account whose rows it may touch, and who asked
	user_id uuid not null references auth.users(id) on delete cascade,
	created_by uuid references auth.users(id) on delete set null,
	-- what kind of rows ('domains') and what to do to them ('check-dns', 'move', ...)
	kind text not null,
	action text not null,
	params jsonb not null default '{}',
	-- either the chosen ids or the filter every matching row was chosen by
	-- text: an id that names nothing (not even a uuid) is skipped and counted like another account's
	ids text[],
	filter jsonb,
	status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
	total integer not null default 0,
	done integer not null default 0,
	skipped integer not null default 0,
	failed integer not null default 0,
	-- the checkpoint: ids are worked through in order; the last one finished
	last_id text,
	-- a few of the rows skipped or failed, with why (what the user reads)
	notes jsonb not null default '[]',
	error text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now(),
	finished_at timestamptz
);
create index bulk_actions_owner_idx on bulk_actions (user_id, created_at desc);
create index bulk_actions_unfinished_idx on bulk_actions (updated_at) where status in ('queued', 'running');
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw('drop table bulk_actions; drop table table_preferences;').execute(db)
}
