import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 35 points 1 and 7: what a run did differently from what was asked, in words for the
// person reading its summary (the bulk file service was not there, so the emails were checked
// one by one; a file failed; the provider did not answer in time for some emails). Each note
// once, in the order they happened.
// A bulk file's report is kept by its id until its answers are written: the next file goes to
// the provider first, so the provider works while we write, and a job that stops in between
// downloads the report again instead of losing its answers.
export async function up(db: Kysely<any>) {
	await sql`alter table verification_runs add column notes text[] not null default '{}',
		add column bulk_report_file_id text`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`alter table verification_runs drop column notes, drop column bulk_report_file_id`.execute(
		db,
	)
}
