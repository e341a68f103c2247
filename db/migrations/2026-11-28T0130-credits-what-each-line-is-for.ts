import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Where the credits went (issue 34 point 5, decision 0083): each ledger line names what it is
// for in its own columns, not only in its `reference` text: the lead or company list, the
// enrichment run, the checkout (a pack bought), the subscription (plan credits), and an
// admin's note. No foreign keys: a list deleted later cascades its searches and runs away,
// and the ledger keeps its lines (and their ids) as they were written. Lines written before
// are filled in from their references and, for an admin's change, from the audit row written
// in the same transaction (same account, amount and balance).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table credits
	add column list_id uuid,
	add column company_list_id uuid,
	add column enrichment_run_id uuid,
	add column checkout_session_id uuid,
	add column subscription_id uuid,
	add column note text check (note is null or length(note) <= 500);

-- the references' ids, where they are uuids (written by the jobs and payments)
with parsed as (
	select id, split_part(reference, ':', 1) as kind, split_part(reference, ':', 2) as ref_id
	from credits
	where reference ~ '^(enrich|lead-scrape|company-scrape|checkout|subscription):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(:|$)'
)
update credits c
set enrichment_run_id = case when p.kind = 'enrich' then p.ref_id::uuid end,
	company_list_id = case when p.kind = 'company-scrape' then p.ref_id::uuid end,
	checkout_session_id = case when p.kind = 'checkout' then p.ref_id::uuid end,
	subscription_id = case when p.kind = 'subscription' then p.ref_id::uuid end
from parsed p
where c.id = p.id;

-- a run's list, and a search's list (lead or company), while they exist
update credits c
set list_id = r.list_id, company_list_id = r.company_list_id
from enrichment_runs r
where r.id = c.enrichment_run_id and r.user_id = c.user_id;

update credits c
set list_id = a.list_id, company_list_id = a.company_list_id
from apollo_requests a
where c.reference ~ '^lead-scrape:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(:|$)'
	and a.id = split_part(c.reference, ':', 2)::uuid and a.user_id = c.user_id;

-- an admin's note, from the audit row of the same change
update credits c
set note = left(a.after->>'note', 500)
from audit_log a
where c.reason = 'admin' and c.note is null
	and a.action in ('admin.credits.grant', 'admin.credits.deduct')
	and a.target_id = c.user_id::text
	and a.after->>'amount' = abs(c.delta)::text
	and a.after->>'balance' = c.balance_after::text
	and c.created_at between a.created_at - interval '1 minute' and a.created_at + interval '1 minute';

-- a list's or a run's cost is one indexed sum
create index credits_list_idx on credits (list_id) where list_id is not null;
create index credits_company_list_idx on credits (company_list_id) where company_list_id is not null;
create index credits_enrichment_run_idx on credits (enrichment_run_id) where enrichment_run_id is not null;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop index credits_list_idx;
drop index credits_company_list_idx;
drop index credits_enrichment_run_idx;
alter table credits
	drop column list_id,
	drop column company_list_id,
	drop column enrichment_run_id,
	drop column checkout_session_id,
	drop column subscription_id,
	drop column note;
`,
		)
		.execute(db)
}
