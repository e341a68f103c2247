import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// The inbox-order job (issue 7): a paid order gets its exact addresses planned (persona x
// pattern per domain) for the admins who create them, and the admins are mailed once.
// - planned_inboxes: [{ domainId, domain, address, firstName, lastName }], null until planned.
// - admins_notified_at: when the admins were mailed (a retried job never mails twice).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table inbox_orders
	add column planned_inboxes jsonb,
	add column planned_at timestamptz,
	add column admins_notified_at timestamptz;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table inbox_orders drop column planned_inboxes, drop column planned_at,
	drop column admins_notified_at;
`,
		)
		.execute(db)
}
