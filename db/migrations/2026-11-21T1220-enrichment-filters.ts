import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A run on a filtered part of a list (issue 6): the run keeps the filter it was started
// with, for people to read back (null: the whole list). The rows themselves are already
// a snapshot (enrichment_run_rows, written at start), so a resumed run takes the same leads.
export async function up(db: Kysely<any>) {
	await sql`alter table enrichment_runs add column filter jsonb`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`alter table enrichment_runs drop column filter`.execute(db)
}
