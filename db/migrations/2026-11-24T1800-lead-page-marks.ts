import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A typed page number in the middle of a finished 1,000,000-lead list walked half a million
// index entries (58 ms in added order, more in a sorted one). These are every 5,000th lead of
// a finished list in one order, so a page starts at most 5,000 entries from a known lead.
// Decision 0045.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table lead_page_marks (
  list_id uuid not null references processing_list(id) on delete cascade,
  -- the list page's sort key (added, email, first_name, last_name, company), ascending
  sort text not null,
  -- processing_list.found when asked for: marks of another size are stale
  found integer not null,
  -- the leads the job walked (the rows' positions count from these)
  rows integer,
  -- lead number i * every in this order: its sort keys (an array each; null in added order)
  -- and id
  every integer,
  keys jsonb,
  ids uuid[],
  requested_at timestamptz not null default now(),
  built_at timestamptz,
  primary key (list_id, sort)
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql`drop table lead_page_marks`.execute(db)
}
