import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// GET /reauthenticate mails a nonce; Supabase's auth.users keeps when it was sent (added only
// where absent, so the same migration runs against a Supabase database).
export async function up(db: Kysely<any>) {
	await sql
		.raw(`alter table auth.users add column if not exists reauthentication_sent_at timestamptz;`)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`alter table auth.users drop column reauthentication_sent_at;`).execute(db)
}
