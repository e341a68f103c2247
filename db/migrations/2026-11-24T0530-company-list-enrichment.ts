import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Company lists can be enriched (issue 16 point 7, decision 0039): a run belongs to exactly
// one list, a lead list (list_id) or a company list (company_list_id). A company run's rows
// live in their own table, keyed (run_id, company_id) like the lead rows' (run_id, lead_id),
// so the lead rows keep their primary key, indexes and plans unchanged.
export async function up(db: Kysely<any>) {
	await sql`
		alter table enrichment_runs
			alter column list_id drop not null,
			add column company_list_id uuid references company_scraping_list(id) on delete cascade,
			add constraint enrichment_runs_one_list_check
				check ((list_id is null) <> (company_list_id is null));
		create index enrichment_runs_company_list_idx
			on enrichment_runs (company_list_id, created_at desc) where company_list_id is not null;
		create table enrichment_company_rows (
			run_id uuid not null references enrichment_runs(id) on delete cascade,
			company_id uuid not null references companies(id) on delete cascade,
			status smallint not null default 0 check (status between 0 and 3),
			error text,
			-- paid model calls this row made (cache hits are free), for the attempt that set it
			calls integer not null default 0,
			cached integer not null default 0,
			attempt integer not null default 1,
			updated_at timestamptz not null default now(),
			primary key (run_id, company_id)
		);
		create index enrichment_company_rows_status_idx
			on enrichment_company_rows (run_id, status, company_id);
	`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`
		drop table enrichment_company_rows;
		drop index enrichment_runs_company_list_idx;
		delete from enrichment_runs where list_id is null;
		alter table enrichment_runs
			drop constraint enrichment_runs_one_list_check,
			drop column company_list_id,
			alter column list_id set not null;
	`.execute(db)
}
