import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A run's rows are written by the enrich job, not by the request that starts the run
// (decision 0019): the run keeps the count it was started with (total), the leads' cut-off
// (leads created after it are not taken) and where the job has got to (the last lead id
// written and how many rows), so a worker that dies resumes without duplicates.
// Runs made before this migration already have every row: prepared defaults to true for them,
// and to false from now on.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table enrichment_runs
	add column prepared boolean not null default true,
	add column leads_cutoff timestamptz,
	add column prepared_after uuid,
	add column prepared_rows integer not null default 0;
alter table enrichment_runs alter column prepared set default false;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table enrichment_runs
	drop column prepared,
	drop column leads_cutoff,
	drop column prepared_after,
	drop column prepared_rows;
`,
		)
		.execute(db)
}
