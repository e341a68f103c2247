import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A list moved to another workspace left its enrichment runs in the old one (shown there, not
// where the list is). Moves now carry them; this puts the runs of lists moved before back with
// their list. Data only; nothing to undo.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
update enrichment_runs r set workspace_id = l.workspace_id, updated_at = now()
from processing_list l
where r.list_id = l.id and r.workspace_id is distinct from l.workspace_id;
update enrichment_runs r set workspace_id = c.workspace_id, updated_at = now()
from company_scraping_list c
where r.company_list_id = c.id and r.workspace_id is distinct from c.workspace_id;
`,
		)
		.execute(db)
}

export async function down() {}
