import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Do-not-contact lists (issue 36, decision 0092): entries are an email or a domain (with its
// subdomains), account-wide (workspace_id null) or of one workspace. Suppression is computed
// where a lead is used, by matching the lead's keys (dnc_keys: its normalised email, its
// domain and the domain's parents) against the entries' value index: a set operation, correct
// the moment an entry is added or removed.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table do_not_contact (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete cascade,
	value text not null check (value = lower(btrim(value)) and value <> ''),
	kind text not null generated always as (case when value like '%@%' then 'email' else 'domain' end) stored,
	reason text not null
		check (reason in ('unsubscribed', 'bounced', 'customer', 'competitor', 'manual', 'emailbison')),
	-- who added it (no foreign key: a million-line import checks none per row)
	added_by uuid,
	created_at timestamptz not null default now()
);
-- one entry per value and scope; also the matching index (account, value)
create unique index do_not_contact_value_idx on do_not_contact
	(user_id, value, coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid));
create index do_not_contact_recent_idx on do_not_contact (user_id, created_at desc, id);

-- A lead's match keys: its email (trimmed, lower case; plus and dots kept), its domain and
-- each parent domain down to two labels (a.b.example.com: a.b.example.com, b.example.com,
-- example.com). An entry matches when its value is one of them.
create function dnc_keys(email text) returns text[]
language sql immutable strict parallel safe as $$
	select case when position('@' in n) = 0 then array[n]
		else array[n] || array(
			select array_to_string(p[i:], '.')
			from generate_series(1, greatest(cardinality(p) - 1, 1)) i
		) end
	from (select lower(btrim(email)) as n) a,
		lateral (select string_to_array(split_part(n, '@', 2), '.') as p) b
$$;

-- duplicates across lists: leads already uploaded, matched by normalised email
create index emailbison_upload_leads_email_idx on emailbison_upload_leads (lower(btrim(email)))
	where eb_lead_id is not null;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop index emailbison_upload_leads_email_idx; drop function dnc_keys(text); drop table do_not_contact;`,
		)
		.execute(db)
}
