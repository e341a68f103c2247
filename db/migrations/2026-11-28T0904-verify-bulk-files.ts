import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 35 point 1 (decision 0099): a run checking its emails through MillionVerifier's bulk
// file API keeps the file it is waiting for: its name, written before the upload (a lost
// answer's file is found by it), and its id once the provider gave one. A resumed job polls
// that file instead of uploading the emails again.
export async function up(db: Kysely<any>) {
	await sql`alter table verification_runs add column bulk_file_name text,
		add column bulk_file_id text`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`alter table verification_runs drop column bulk_file_name, drop column bulk_file_id`.execute(
		db,
	)
}
