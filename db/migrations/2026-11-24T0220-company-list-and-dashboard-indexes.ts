import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A company list opens as a page (issue 16 point 7): its companies sorted by name or by
// domain and paged by keyset, and searched by the start of the name or the domain. Each
// index starts with the list id and ends with the row id (the keyset's tie-breaker), in the
// "C" collation so a prefix search (like 'abc%') uses the same index.
// The dashboard (issue 16 point 5) shows each kind of job's running ones first: partial
// indexes keep that a read of a few rows for accounts with thousands of finished ones.
export async function up(db: Kysely<any>) {
	await sql`
		create index companies_list_name_sort_idx
			on companies (list_id, (coalesce(lower(name), '')) collate "C", id);
		create index companies_list_domain_sort_idx
			on companies (list_id, (coalesce(lower(domain), '')) collate "C", id);
		create index processing_list_running_idx
			on processing_list (user_id, created_at desc) where status < 2;
		create index company_scraping_list_running_idx
			on company_scraping_list (user_id, created_at desc) where status < 2;
		create index enrichment_runs_running_idx
			on enrichment_runs (user_id, created_at desc) where status < 2;
		create index emailbison_upload_running_idx
			on emailbison_upload (user_id, created_at desc) where status < 2;
	`.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`drop index companies_list_name_sort_idx, companies_list_domain_sort_idx,
		processing_list_running_idx, company_scraping_list_running_idx,
		enrichment_runs_running_idx, emailbison_upload_running_idx`.execute(db)
}
