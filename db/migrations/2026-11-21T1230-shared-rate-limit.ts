import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// The rate limit per provider key, shared by every process (decision 0016): one row per key,
// named by a hash of its base URL and key (never the key), holding the next free call slot.
// Unlogged: a slot is worth nothing after a crash, and a commit then waits for no WAL flush
// (every model call takes a slot).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create unlogged table provider_rate_slots (
	key_hash text primary key,
	next_at timestamptz not null
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop table provider_rate_slots;`).execute(db)
}
