import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A minted EmailBison api-user key is kept with the instance URL it was minted at, and is only
// ever sent there (docs/decisions/0024-threat-model.md, point 7): a key minted while the URL
// changed is not used at the new URL. Keys kept so far were minted at the account's current URL
// (changing the URL dropped them); keys of accounts without a URL are dropped.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table emailbison_workspace_keys add column base_url text;
update emailbison_workspace_keys k set base_url = s.emailbison_api_url
	from settings s where s.user_id = k.user_id;
delete from emailbison_workspace_keys where base_url is null;
alter table emailbison_workspace_keys alter column base_url set not null;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`alter table emailbison_workspace_keys drop column base_url;`).execute(db)
}
