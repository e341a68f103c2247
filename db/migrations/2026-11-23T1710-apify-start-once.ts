import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// apollo_requests.start_requested_at: written (durably) before the job asks Apify to start
// the search's run; a job that finds it set but no run id looks for that run among the
// actor's recent runs (by its input) before starting another (decision 0027).
export async function up(db: Kysely<any>) {
	await sql
		.raw(`alter table apollo_requests add column start_requested_at timestamptz;`)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`alter table apollo_requests drop column start_requested_at;`).execute(db)
}
