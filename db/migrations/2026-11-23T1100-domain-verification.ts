import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A domain forwards only after its owner proved control of its DNS (issue 14):
// - verification_token: per domain row (so per account), published by the owner as a TXT record;
// - verified_at: when a DNS check found it. Names are unique per account only, so another
//   account may hold the same name unverified; at most one row per name is verified.
// Rows that existed before start unverified: their forwarding stops until a check finds the TXT.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table domains
	add column verification_token text not null default replace(gen_random_uuid()::text, '-', ''),
	add column verified_at timestamptz;
create unique index domains_verified_name_key on domains (name) where verified_at is not null;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop index domains_verified_name_key;
alter table domains drop column verification_token, drop column verified_at;
`,
		)
		.execute(db)
}
