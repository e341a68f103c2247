import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 35 point 1 (decision 0099): a run checking its emails through MillionVerifier's bulk
// file API keeps the file it is waiting for: its name, written before the upload (a lost
// answer's file is found by it), and its id once the provider gave one. A resumed job polls
// that file instead of uploading the emails again.
// Issue 35 point 5 paid with credits: an enrichment run whose Verify email steps use the
// platform's verification key holds credits for them apart (per attempt, at the price of a
// verification), and each row counts the definitive answers it was charged for.
export async function up(db: Kysely<any>) {
	await sql`alter table verification_runs add column bulk_file_name text,
		add column bulk_file_id text`.execute(db)
	await sql`alter table enrichment_runs add column verify_credits_reserved integer not null default 0,
		add column verify_credits_per_check integer not null default 0`.execute(db)
	await sql`alter table enrichment_run_rows add column verify_charged integer not null default 0`.execute(
		db,
	)
}

export async function down(db: Kysely<any>) {
	await sql`alter table enrichment_run_rows drop column verify_charged`.execute(db)
	await sql`alter table enrichment_runs drop column verify_credits_reserved,
		drop column verify_credits_per_check`.execute(db)
	await sql`alter table verification_runs drop column bulk_file_name, drop column bulk_file_id`.execute(
		db,
	)
}
