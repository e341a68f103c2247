import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Issue 38, decision 0105: a domain's last conclusive check (healthy, warning or failing; "could
// not check" never replaces it) kept on its latest-health row, so a run compares with it and
// replaces it in the one locked upsert (RETURNING old): two overlapping runs of one domain see
// each other's result and one change makes one event and one notification.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table domain_health add column last_status text, add column last_grade text;
update domain_health d set last_status = h.status, last_grade = h.grade
from (
	select distinct on (domain_id) domain_id, status, grade from domain_health_history
	where status <> 'unknown' order by domain_id, id desc
) h
where h.domain_id = d.domain_id;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(`alter table domain_health drop column last_status, drop column last_grade;`)
		.execute(db)
}
