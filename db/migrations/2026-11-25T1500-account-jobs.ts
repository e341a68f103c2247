import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Every job of an account in one table, as the dashboard shows it (decision 0053): one row per
// lead list (search or CSV import), company list, enrichment run and EmailBison upload, kept by
// triggers on those four tables. The dashboard read the newest jobs and lists of each table in
// its own index scans (16 of them, a 56-node plan) and sorted every unassigned row of each, so
// an account without workspaces read all its lists on every view; here it reads at most five
// short index ranges, each in order.
//
// A row-level trigger per table rather than the job code, as for the credits spent per day
// (2026-11-24T0510) and a run's counts (2026-11-25T0900): every write path keeps the feed,
// including cascades (an account or a list deleted), a workspace deleted (its rows set to
// unassigned) and a fix-up by hand. Updates fire only for the columns the feed copies, and
// write nothing when the copy is already the same.
//
// Unassigned rows are indexed under the nil uuid (`coalesce(workspace_id, nil)`): PostgreSQL
// reads an `is null` range of an index unordered and sorts it, where an equality gives the
// range in order, so `limit 8` stops after eight rows.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table account_jobs (
	id uuid primary key,
	user_id uuid not null,
	workspace_id uuid,
	-- lead-search, csv-import, company-search, enrichment, company-enrichment, upload
	kind text not null,
	name text not null,
	status integer not null,
	progress integer not null,
	error text,
	-- the list the job's result belongs to (the list itself for a search or an import)
	list_id uuid,
	-- a lead or company list, shown under the dashboard's lists too, with its rows found
	is_list boolean not null,
	found integer,
	created_at timestamptz not null
);

create index account_jobs_running_idx on account_jobs (user_id, created_at desc)
	where status < 2;
-- not partial on status: with an estimate of a few finished rows in a range, the planner read
-- all of them through a bitmap and sorted them instead of stopping after eight in order
create index account_jobs_owner_idx on account_jobs
	(user_id, coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid), created_at desc);
create index account_jobs_lists_idx on account_jobs
	(user_id, coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid), created_at desc)
	where is_list;

-- an unchanged copy is not written again
create function account_jobs_upsert(job account_jobs) returns void language sql as $$
	insert into account_jobs select (job).*
	on conflict (id) do update set
		workspace_id = excluded.workspace_id, kind = excluded.kind, name = excluded.name,
		status = excluded.status, progress = excluded.progress, error = excluded.error,
		list_id = excluded.list_id, found = excluded.found
	where (account_jobs.workspace_id, account_jobs.kind, account_jobs.name, account_jobs.status,
			account_jobs.progress, account_jobs.error, account_jobs.list_id, account_jobs.found)
		is distinct from (excluded.workspace_id, excluded.kind, excluded.name, excluded.status,
			excluded.progress, excluded.error, excluded.list_id, excluded.found)
$$;

-- one function per table, from its row to the feed's
create function account_jobs_of_lead_list(p processing_list) returns account_jobs
language sql immutable as $$
	select row(p.id, p.user_id, p.workspace_id,
		case when p.source_type = 'upload' then 'csv-import' else 'lead-search' end,
		p.name, p.status, p.progress, p.error, p.id, true, p.found, p.created_at)::account_jobs
$$;

create function account_jobs_of_company_list(c company_scraping_list) returns account_jobs
language sql immutable as $$
	select row(c.id, c.user_id, c.workspace_id, 'company-search', c.name, c.status, c.progress,
		c.error, c.id, true, c.found, c.created_at)::account_jobs
$$;

-- a run's progress from the counts kept on it (2026-11-25T0900); in bigint, as * 100 of an
-- integer overflows past 21 million rows
create function account_jobs_of_enrichment_run(e enrichment_runs) returns account_jobs
language sql immutable as $$
	select row(e.id, e.user_id, e.workspace_id,
		case when e.company_list_id is null then 'enrichment' else 'company-enrichment' end,
		e.name, e.status,
		case when e.status >= 2 then 100 when e.total = 0 then 0
			else least(100, (e.rows_done + e.rows_failed)::bigint * 100 / e.total)::int end,
		e.error, coalesce(e.list_id, e.company_list_id), false, null, e.created_at)::account_jobs
$$;

create function account_jobs_of_upload(u emailbison_upload) returns account_jobs
language sql immutable as $$
	select row(u.id, u.user_id, u.workspace_id, 'upload',
		coalesce(nullif(u.campaign_name, ''), 'EmailBison upload'), u.status,
		case when u.status >= 2 then 100 when u.total = 0 then 0
			else least(100, u.sent::bigint * 100 / u.total)::int end,
		u.error, u.list_id, false, null, u.created_at)::account_jobs
$$;

create function account_jobs_follow() returns trigger language plpgsql as $$
begin
	if tg_op = 'DELETE' then
		delete from account_jobs where id = old.id;
		return null;
	end if;
	-- one branch per table: each is planned for its own table's rows only
	if tg_table_name = 'processing_list' then
		perform account_jobs_upsert(account_jobs_of_lead_list(new));
	elsif tg_table_name = 'company_scraping_list' then
		perform account_jobs_upsert(account_jobs_of_company_list(new));
	elsif tg_table_name = 'enrichment_runs' then
		perform account_jobs_upsert(account_jobs_of_enrichment_run(new));
	else
		perform account_jobs_upsert(account_jobs_of_upload(new));
	end if;
	return null;
end
$$;

-- no job written while the feed is filled in
lock table processing_list, company_scraping_list, enrichment_runs, emailbison_upload
	in share row exclusive mode;

create trigger account_jobs_insert_delete after insert or delete on processing_list
	for each row execute function account_jobs_follow();
create trigger account_jobs_update after update of
	workspace_id, source_type, name, status, progress, error, found on processing_list
	for each row execute function account_jobs_follow();
create trigger account_jobs_insert_delete after insert or delete on company_scraping_list
	for each row execute function account_jobs_follow();
create trigger account_jobs_update after update of
	workspace_id, name, status, progress, error, found on company_scraping_list
	for each row execute function account_jobs_follow();
create trigger account_jobs_insert_delete after insert or delete on enrichment_runs
	for each row execute function account_jobs_follow();
create trigger account_jobs_update after update of
	workspace_id, company_list_id, list_id, name, status, total, rows_done, rows_failed, error
	on enrichment_runs
	for each row execute function account_jobs_follow();
create trigger account_jobs_insert_delete after insert or delete on emailbison_upload
	for each row execute function account_jobs_follow();
create trigger account_jobs_update after update of
	workspace_id, list_id, campaign_name, status, total, sent, error on emailbison_upload
	for each row execute function account_jobs_follow();

insert into account_jobs
select (account_jobs_of_lead_list(p)).* from processing_list p
union all
select (account_jobs_of_company_list(c)).* from company_scraping_list c
union all
select (account_jobs_of_enrichment_run(e)).* from enrichment_runs e
union all
select (account_jobs_of_upload(u)).* from emailbison_upload u;

-- the statistics of the expression indexes, before the dashboard's generic plans are made
analyze account_jobs;

-- made for the dashboard's running jobs of each table (2026-11-24T0220); nothing else reads
-- them, and every write to the four tables kept them up
drop index processing_list_running_idx, company_scraping_list_running_idx,
	enrichment_runs_running_idx, emailbison_upload_running_idx;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`create index processing_list_running_idx
				on processing_list (user_id, created_at desc) where status < 2;
			create index company_scraping_list_running_idx
				on company_scraping_list (user_id, created_at desc) where status < 2;
			create index enrichment_runs_running_idx
				on enrichment_runs (user_id, created_at desc) where status < 2;
			create index emailbison_upload_running_idx
				on emailbison_upload (user_id, created_at desc) where status < 2;
			drop trigger account_jobs_insert_delete on processing_list;
			drop trigger account_jobs_update on processing_list;
			drop trigger account_jobs_insert_delete on company_scraping_list;
			drop trigger account_jobs_update on company_scraping_list;
			drop trigger account_jobs_insert_delete on enrichment_runs;
			drop trigger account_jobs_update on enrichment_runs;
			drop trigger account_jobs_insert_delete on emailbison_upload;
			drop trigger account_jobs_update on emailbison_upload;
			drop function account_jobs_follow();
			drop function account_jobs_of_lead_list(processing_list);
			drop function account_jobs_of_company_list(company_scraping_list);
			drop function account_jobs_of_enrichment_run(enrichment_runs);
			drop function account_jobs_of_upload(emailbison_upload);
			drop function account_jobs_upsert(account_jobs);
			drop table account_jobs;`,
		)
		.execute(db)
}
