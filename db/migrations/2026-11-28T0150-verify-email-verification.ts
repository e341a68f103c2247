import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Email verification (issue 35, decision 0086): each lead keeps our own check (status, role
// flag, the provider's raw answer, when) beside the imported `email_status`, which stays what
// the file said; the account's answers are cached per email; a run has a status row and one
// row per lead it takes, the checkpoint a resumed job reads.
export async function up(db: Kysely<any>) {
	await sql`
alter table leads
	add column verify_status text
		check (verify_status in ('valid', 'invalid', 'catch_all', 'disposable', 'risky', 'unknown')),
	add column verify_role boolean,
	add column verify_raw jsonb,
	add column verify_provider text,
	add column verified_at timestamptz;

-- the list page's sort by status (best first, unverified last) and its filter
create index leads_list_verify_sort_idx on leads (list_id, (case verify_status
	when 'valid' then '1' when 'catch_all' then '2' when 'risky' then '3' when 'unknown' then '4'
	when 'disposable' then '5' when 'invalid' then '6' else '7' end) collate "C", id);

create table email_checks (
	user_id uuid not null references auth.users(id) on delete cascade,
	email text not null,
	provider text not null,
	status text not null,
	role boolean not null default false,
	raw jsonb,
	checked_at timestamptz not null default now(),
	primary key (user_id, email)
);

create table verification_runs (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	list_id uuid not null references processing_list(id) on delete cascade,
	filter jsonb,
	provider text not null check (provider in ('millionverifier', 'zerobounce', 'reacher')),
	key_kind text not null check (key_kind in ('ownKey', 'credits')),
	status smallint not null default 0 check (status between 0 and 3),
	error text,
	total integer not null default 0,
	checked integer not null default 0,
	cached integer not null default 0,
	charged integer not null default 0,
	credits_reserved integer not null default 0,
	credits_per_check integer not null default 0,
	started_at timestamptz,
	finished_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index verification_runs_list_idx on verification_runs (list_id, created_at desc);
create index verification_runs_user_idx on verification_runs (user_id, created_at desc);

create table verification_run_rows (
	run_id uuid not null references verification_runs(id) on delete cascade,
	lead_id uuid not null references leads(id) on delete cascade,
	email text not null,
	-- 0 pending, 1 asked (the provider has it), 2 done
	state smallint not null default 0,
	result text,
	-- the answer came from the account's cache (free)
	cached boolean not null default false,
	-- a definitive answer paid with credits
	charged boolean not null default false,
	error text,
	primary key (run_id, lead_id)
);
create index verification_run_rows_pending_idx on verification_run_rows (run_id, lead_id) where state = 0;

-- a ledger line says which verification it paid for (decision 0083: no foreign key, the line
-- outlives the run)
alter table credits add column verification_run_id uuid;
create index credits_verification_run_idx on credits (verification_run_id)
	where verification_run_id is not null;
`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`
alter table credits drop column verification_run_id;
drop table verification_run_rows;
drop table verification_runs;
drop table email_checks;
drop index leads_list_verify_sort_idx;
alter table leads drop column verify_status, drop column verify_role, drop column verify_raw,
	drop column verify_provider, drop column verified_at;
`.execute(db)
}
