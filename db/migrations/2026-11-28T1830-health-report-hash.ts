import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Decision 0105 (addendum of 2026-11-28, evening): a check whose report is the one already
// stored sends its hash instead of the report; the latest row keeps its report, and the
// history row of such a check holds no copy (null: the same report as the check before it).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table domain_health add column report_hash text;
alter table domain_health_history alter column report drop not null;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
update domain_health_history h set report = coalesce(
	(select p.report from domain_health_history p
	where p.domain_id = h.domain_id and p.id < h.id and p.report is not null
	order by p.id desc limit 1),
	(select d.report from domain_health d where d.domain_id = h.domain_id))
where h.report is null;
alter table domain_health_history alter column report set not null;
alter table domain_health drop column report_hash;
`,
		)
		.execute(db)
}
