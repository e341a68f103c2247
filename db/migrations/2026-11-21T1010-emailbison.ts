import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Upload to EmailBison (issue 8):
// - emailbison_upload gains the names shown in the history and the attach counter.
// - emailbison_upload_leads: one row per lead of an upload, snapshotted when it is confirmed:
//   the EmailBison lead id once the upsert answered (then `attached` once the campaign has it),
//   or the reason EmailBison rejected it. The job's exactly-once checkpoint and the rejected CSV.
// - emailbison_workspace_keys: api-user keys minted per EmailBison workspace with the account's
//   super-admin key (encrypted), so no job ever switches the super-admin key's workspace.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table emailbison_upload
	add column eb_workspace_name text not null default '',
	add column campaign_name text not null default '',
	add column attached integer not null default 0;

create table emailbison_upload_leads (
	upload_id uuid not null references emailbison_upload(id) on delete cascade,
	lead_id uuid not null,
	email text not null,
	eb_lead_id text,
	attached boolean not null default false,
	rejected_reason text,
	primary key (upload_id, lead_id)
);
create index emailbison_upload_leads_pending_idx on emailbison_upload_leads (upload_id, lead_id)
	where eb_lead_id is null and rejected_reason is null;
create index emailbison_upload_leads_unattached_idx on emailbison_upload_leads (upload_id, lead_id)
	where eb_lead_id is not null and not attached;

create table emailbison_workspace_keys (
	user_id uuid not null references auth.users(id) on delete cascade,
	eb_workspace_id text not null,
	encrypted_key text not null,
	last4 text not null,
	created_at timestamptz not null default now(),
	primary key (user_id, eb_workspace_id)
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop table emailbison_workspace_keys, emailbison_upload_leads;
alter table emailbison_upload drop column eb_workspace_name, drop column campaign_name,
	drop column attached;
`,
		)
		.execute(db)
}
