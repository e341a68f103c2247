import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// AI enrichments on lead lists (issue 6):
// - enrichment_runs: one per "run this enrichment or chain on this list"; the steps are a
//   snapshot taken at the start, so editing an enrichment later does not change a run.
// - enrichment_run_rows: one per lead of the run, with its status and error; a row's
//   result is written into leads.data in the same transaction as its status (the checkpoint).
// - enrichment_cache: model answers keyed by sha256(rendered prompt, model, format), per
//   account, so a re-run of unchanged rows calls nothing and costs nothing.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table ai_enrichments add constraint ai_enrichments_temperature_check
	check (temperature >= 0 and temperature <= 2);
create unique index ai_enrichments_user_output_key on ai_enrichments (user_id, lower(output_column));

create table enrichment_runs (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete set null,
	list_id uuid not null references processing_list(id) on delete cascade,
	enrichment_id uuid references ai_enrichments(id) on delete set null,
	chain_id uuid references enrichment_chain(id) on delete set null,
	name text not null,
	steps jsonb not null,
	key_kind text not null check (key_kind in ('ownKey', 'credits')),
	status smallint not null default 0 check (status between 0 and 3),
	total integer not null default 0,
	error text,
	attempt integer not null default 1,
	credits_reserved integer not null default 0,
	credits_per_call integer not null default 0,
	started_at timestamptz,
	finished_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index enrichment_runs_list_idx on enrichment_runs (list_id, created_at desc);
create index enrichment_runs_user_idx on enrichment_runs (user_id, created_at desc);

create table enrichment_run_rows (
	run_id uuid not null references enrichment_runs(id) on delete cascade,
	lead_id uuid not null references leads(id) on delete cascade,
	status smallint not null default 0 check (status between 0 and 3),
	error text,
	-- paid model calls this row made (cache hits are free), for the attempt that set it
	calls integer not null default 0,
	cached integer not null default 0,
	attempt integer not null default 1,
	updated_at timestamptz not null default now(),
	primary key (run_id, lead_id)
);
create index enrichment_run_rows_status_idx on enrichment_run_rows (run_id, status, lead_id);

create table enrichment_cache (
	user_id uuid not null references auth.users(id) on delete cascade,
	hash text not null,
	output jsonb not null,
	created_at timestamptz not null default now(),
	primary key (user_id, hash)
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop table enrichment_cache, enrichment_run_rows, enrichment_runs;
drop index ai_enrichments_user_output_key;
alter table ai_enrichments drop constraint ai_enrichments_temperature_check;
`,
		)
		.execute(db)
}
