import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A company run's rows are written and settled by the same statements as a lead run's
// (enrichment_run_rows), which count `verify_charged` since 2026-11-28T0904. A company has no
// email to verify, so the count stays 0 there; the column keeps one statement for both kinds.
export async function up(db: Kysely<any>) {
	await sql`alter table enrichment_company_rows add column verify_charged integer not null default 0`.execute(
		db,
	)
}

export async function down(db: Kysely<any>) {
	await sql`alter table enrichment_company_rows drop column verify_charged`.execute(db)
}
