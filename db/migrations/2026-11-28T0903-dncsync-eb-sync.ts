import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Do-not-contact both ways with EmailBison (issue 36 point 4, decision 0098): each entry's
// state per EmailBison workspace (sent exactly once: 'sending' is claimed before the call and
// reconciled with EmailBison's blacklist after a crash), and sync runs as status rows, at most
// one queued or running per account (a double submit or a schedule meets the same run).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table dnc_sync_runs (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	created_by uuid references auth.users(id) on delete set null,
	-- push: entries to EmailBison; pull: EmailBison's blacklist and unsubscribed leads back
	push boolean not null default true,
	pull boolean not null default false,
	-- the workspaces whose entries it pushes; null: every entry (account-wide ones too)
	workspace_ids uuid[],
	status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
	total integer not null default 0,
	sent integer not null default 0,
	failed integer not null default 0,
	pulled integer not null default 0,
	-- the account's EmailBison workspaces the run pushed to: [{id, name}]
	targets jsonb,
	-- what could not be synced, in words a user reads: [{workspace, what, reason}]
	problems jsonb not null default '[]',
	error text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now(),
	finished_at timestamptz
);
create unique index dnc_sync_runs_active_idx on dnc_sync_runs (user_id) where status in ('queued', 'running');
create index dnc_sync_runs_owner_idx on dnc_sync_runs (user_id, created_at desc);

create table dnc_eb_sync (
	entry_id uuid not null references do_not_contact(id) on delete cascade,
	eb_workspace_id text not null,
	user_id uuid not null references auth.users(id) on delete cascade,
	-- sending: claimed and maybe sent (a crash leaves it unsure: reconciled, never sent blind)
	status text not null check (status in ('sending', 'synced', 'failed')),
	error text,
	run_id uuid,
	updated_at timestamptz not null default now(),
	primary key (entry_id, eb_workspace_id)
);
create index dnc_eb_sync_unsure_idx on dnc_eb_sync (user_id, eb_workspace_id) where status <> 'synced';
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw('drop table dnc_eb_sync; drop table dnc_sync_runs;').execute(db)
}
