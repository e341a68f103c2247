import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Do-not-contact matching as set operations (issue 36 bench, decision 0092): a domain entry
// that matches a lead shares the last two labels of the lead's domain, so the match is a hash
// (or index) join on that key, then a suffix check; no dnc_keys() call per lead. The index
// serves the probe for a few leads (a page, a small list) against a large account's entries;
// its expression is spelled as in app/services/do-not-contact/match.server.ts.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`create index do_not_contact_domain_idx on do_not_contact
	(user_id, (split_part(value, '.', -2) || '.' || split_part(value, '.', -1)))
	where kind = 'domain';`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop index do_not_contact_domain_idx;`).execute(db)
}
