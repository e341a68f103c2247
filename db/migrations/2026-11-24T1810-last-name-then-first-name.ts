import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// The list page's "Last name" order breaks ties by first name (then id), and a two-word search
// ("ada love": first name Ada…, last name Love…) finds its leads in this one index, checking
// both names in the index entries instead of reading every lead with the last name from the
// table (67 ms on a 1,000,000-lead list). It replaces the (list_id, last name, id) index, so
// imports keep the same number of indexes to write. Decision 0045.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create index leads_list_last_first_name_sort_idx on leads (list_id,
  (coalesce(lower(last_name), '')) collate "C", (coalesce(lower(first_name), '')) collate "C", id);
drop index leads_list_last_name_sort_idx;
-- the planner knows an expression's values only from its index's statistics: without them a
-- one-word search on a big list walked the whole list (1.2 s instead of 15 ms)
analyze leads;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
create index leads_list_last_name_sort_idx on leads (list_id, (coalesce(lower(last_name), '')) collate "C", id);
drop index leads_list_last_first_name_sort_idx;
`,
		)
		.execute(db)
}
