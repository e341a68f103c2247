import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 35 points 5 and 6.
// - A chain's catch-all policy for its "Verify email" steps: 'safe' (only safe to send:
//   catch-all counts as not verified, so the next finder runs) or 'accept'.
// - An upload's choices by verification status (`verify_choice`: the statuses left out and
//   what happens to unverified leads), the verification it waits for ("verify first") and how
//   many leads were left out, per status (`left_out`, written once, when they are left out).
export async function up(db: Kysely<any>) {
	await sql`alter table enrichment_chain add column catch_all_policy text not null default 'safe'
		constraint enrichment_chain_catch_all_policy check (catch_all_policy in ('safe', 'accept'))`.execute(
		db,
	)
	await sql`alter table emailbison_upload add column verify_choice jsonb,
		add column verify_run_id uuid references verification_runs (id) on delete set null,
		add column left_out jsonb`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`alter table emailbison_upload drop column verify_choice, drop column verify_run_id,
		drop column left_out`.execute(db)
	await sql`alter table enrichment_chain drop column catch_all_policy`.execute(db)
}
