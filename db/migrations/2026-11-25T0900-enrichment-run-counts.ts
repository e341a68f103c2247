import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A run's done and failed rows and its calls and cache hits, kept on the run itself by the
// database on every write to its rows (decision 0050). The dashboard's progress of a running
// run and the enrich page's counts of the last 20 runs counted every row of each run on every
// view: a run over 100,000 leads cost tens of milliseconds a view, and 20 of them seconds.
// Statement triggers with transition tables, so a batch of 500 rows written at once updates
// its run once, and rows written unchanged (all pending, as a run's rows are prepared) not at
// all; a trigger rather than the run code, so no write path (a retry, a deleted lead, a fix-up
// by hand) can leave the counts behind.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table enrichment_runs
	add column rows_done integer not null default 0,
	add column rows_failed integer not null default 0,
	add column calls integer not null default 0,
	add column cached integer not null default 0;

create function enrichment_run_counts_apply() returns trigger language plpgsql as $$
begin
	-- each branch names only the transition tables its event has
	if tg_op = 'INSERT' then
		update enrichment_runs e
		set rows_done = e.rows_done + d.done, rows_failed = e.rows_failed + d.failed,
			calls = e.calls + d.calls, cached = e.cached + d.cached
		from (
			select run_id, count(*) filter (where status = 2) as done,
				count(*) filter (where status = 3) as failed, sum(calls) as calls, sum(cached) as cached
			from new_rows group by run_id
		) d
		where e.id = d.run_id and (d.done, d.failed, d.calls, d.cached) <> (0, 0, 0, 0);
	elsif tg_op = 'DELETE' then
		update enrichment_runs e
		set rows_done = e.rows_done - d.done, rows_failed = e.rows_failed - d.failed,
			calls = e.calls - d.calls, cached = e.cached - d.cached
		from (
			select run_id, count(*) filter (where status = 2) as done,
				count(*) filter (where status = 3) as failed, sum(calls) as calls, sum(cached) as cached
			from old_rows group by run_id
		) d
		where e.id = d.run_id and (d.done, d.failed, d.calls, d.cached) <> (0, 0, 0, 0);
	else
		update enrichment_runs e
		set rows_done = e.rows_done + d.done, rows_failed = e.rows_failed + d.failed,
			calls = e.calls + d.calls, cached = e.cached + d.cached
		from (
			select run_id, sum(done) as done, sum(failed) as failed, sum(calls) as calls,
				sum(cached) as cached
			from (
				select run_id, (status = 2)::int as done, (status = 3)::int as failed, calls, cached
				from new_rows
				union all
				select run_id, -(status = 2)::int, -(status = 3)::int, -calls, -cached
				from old_rows
			) change
			group by run_id
		) d
		where e.id = d.run_id and (d.done, d.failed, d.calls, d.cached) <> (0, 0, 0, 0);
	end if;
	return null;
end
$$;

-- no row written while the counts are filled in
lock table enrichment_run_rows, enrichment_company_rows in share row exclusive mode;

create trigger enrichment_run_rows_counts_insert after insert on enrichment_run_rows
	referencing new table as new_rows
	for each statement execute function enrichment_run_counts_apply();
create trigger enrichment_run_rows_counts_update after update on enrichment_run_rows
	referencing old table as old_rows new table as new_rows
	for each statement execute function enrichment_run_counts_apply();
create trigger enrichment_run_rows_counts_delete after delete on enrichment_run_rows
	referencing old table as old_rows
	for each statement execute function enrichment_run_counts_apply();

create trigger enrichment_company_rows_counts_insert after insert on enrichment_company_rows
	referencing new table as new_rows
	for each statement execute function enrichment_run_counts_apply();
create trigger enrichment_company_rows_counts_update after update on enrichment_company_rows
	referencing old table as old_rows new table as new_rows
	for each statement execute function enrichment_run_counts_apply();
create trigger enrichment_company_rows_counts_delete after delete on enrichment_company_rows
	referencing old table as old_rows
	for each statement execute function enrichment_run_counts_apply();

update enrichment_runs e
set rows_done = d.done, rows_failed = d.failed, calls = d.calls, cached = d.cached
from (
	select run_id, count(*) filter (where status = 2) as done,
		count(*) filter (where status = 3) as failed, sum(calls) as calls, sum(cached) as cached
	from (
		select run_id, status, calls, cached from enrichment_run_rows
		union all
		select run_id, status, calls, cached from enrichment_company_rows
	) r
	group by run_id
) d
where e.id = d.run_id;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop trigger enrichment_run_rows_counts_insert on enrichment_run_rows;
			drop trigger enrichment_run_rows_counts_update on enrichment_run_rows;
			drop trigger enrichment_run_rows_counts_delete on enrichment_run_rows;
			drop trigger enrichment_company_rows_counts_insert on enrichment_company_rows;
			drop trigger enrichment_company_rows_counts_update on enrichment_company_rows;
			drop trigger enrichment_company_rows_counts_delete on enrichment_company_rows;
			drop function enrichment_run_counts_apply();
			alter table enrichment_runs drop column rows_done, drop column rows_failed,
				drop column calls, drop column cached;`,
		)
		.execute(db)
}
