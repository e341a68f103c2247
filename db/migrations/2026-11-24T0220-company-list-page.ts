import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A company list opens as a page (issue 16 point 7): its companies sorted by name or by
// domain and paged by keyset, and searched by the start of the name or the domain. Each
// index starts with the list id and ends with the row id (the keyset's tie-breaker), in the
// "C" collation so a prefix search (like 'abc%') uses the same index.
export async function up(db: Kysely<any>) {
	await sql`
		create index companies_list_name_sort_idx
			on companies (list_id, (coalesce(lower(name), '')) collate "C", id);
		create index companies_list_domain_sort_idx
			on companies (list_id, (coalesce(lower(domain), '')) collate "C", id);
	`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`drop index companies_list_name_sort_idx, companies_list_domain_sort_idx`.execute(db)
}
