import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 35 point 5: a chain's catch-all policy for its "Verify email" steps: 'safe' (only safe
// to send: catch-all counts as not verified, so the next finder runs) or 'accept'.
export async function up(db: Kysely<any>) {
	await sql`alter table enrichment_chain add column catch_all_policy text not null default 'safe'
		constraint enrichment_chain_catch_all_policy check (catch_all_policy in ('safe', 'accept'))`.execute(
		db,
	)
}

export async function down(db: Kysely<any>) {
	await sql`alter table enrichment_chain drop column catch_all_policy`.execute(db)
}
