import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A key's last failed test, so the API keys page can say "Failed" and why, instead of
// "Not tested" after a test that failed (issue 32 point 7). Cleared by a passing test and
// by saving a new key.
export async function up(db: Kysely<any>) {
	await sql`alter table api_keys add column test_error text`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`alter table api_keys drop column test_error`.execute(db)
}
