import { sql, type Kysely } from 'kysely'

// Frozen in time. Checkpoints for the scrape jobs: how far into the Apify
// dataset (or the pasted domains) a job has read, and what it reserved.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table apollo_requests
	add column items_read integer not null default 0,
	add column credits_reserved integer not null default 0,
	add column attempt integer not null default 1,
	add column found_before integer not null default 0;

alter table company_scraping_list
	add column input_domains text[] not null default '{}',
	add column items_read integer not null default 0,
	add column key_kind text check (key_kind in ('apolloKey', 'apifyKey', 'credits')),
	add column credits_reserved integer not null default 0,
	add column attempt integer not null default 1,
	add column found_before integer not null default 0;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table apollo_requests drop column items_read, drop column credits_reserved, drop column attempt,
	drop column found_before;
alter table company_scraping_list drop column input_domains, drop column items_read, drop column key_kind,
	drop column credits_reserved, drop column attempt, drop column found_before;
`,
		)
		.execute(db)
}
