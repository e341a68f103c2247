import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Side effects once per intent (decision 0027):
// - emailbison_upload.attach_unsure: set (durably) before an attach-leads call, cleared with
//   its checkpoint; a job that finds it set asks EmailBison what the campaign already has
//   before attaching again.
// - form_submissions: one row per form submission that spends credits or money or starts a
//   job, named by the account, the key the form carried and a hash of what it asked for;
//   written in the same transaction as the work, so a repeat waits for the first and answers
//   with its result (where to go and what to say).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table emailbison_upload add column attach_unsure boolean not null default false;

create table form_submissions (
	account_id uuid not null references auth.users(id) on delete cascade,
	key uuid not null,
	fingerprint text not null,
	form text not null,
	result jsonb,
	created_at timestamptz not null default now(),
	primary key (account_id, key, fingerprint)
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop table form_submissions;
alter table emailbison_upload drop column attach_unsure;
`,
		)
		.execute(db)
}
