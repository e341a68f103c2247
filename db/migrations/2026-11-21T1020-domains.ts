import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Domains, URL forwarding, domain subscriptions and inbox orders (issue 7):
// - domain_subscriptions: the checkout that paid it; at most one live subscription per domain.
// - inbox_orders: the checkout that paid it (fulfilment runs once per checkout), when it was
//   fulfilled or failed and refunded.
// - domain_forwarding_changed: a NOTIFY after any change to domains, so every web process
//   refreshes its in-memory Host -> redirect table (app/services/domains/forwarding-cache.server.ts).
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table domain_subscriptions add column checkout_session_id uuid;
create unique index domain_subscriptions_live_key on domain_subscriptions (domain_id)
	where status in ('active', 'past_due');

alter table inbox_orders
	add column checkout_session_id uuid,
	add column line_index integer,
	add column fulfilled_at timestamptz,
	add column refunded_at timestamptz,
	add column refund_cents integer not null default 0;
create unique index inbox_orders_checkout_key on inbox_orders (checkout_session_id, line_index);

create index inboxes_domain_idx on inboxes (domain_id);

create function domain_forwarding_changed() returns trigger language plpgsql as $$
begin
	perform pg_notify('domain_forwarding_changed', '');
	return null;
end
$$;
create trigger domains_forwarding_notify
	after insert or update or delete or truncate on domains
	for each statement execute function domain_forwarding_changed();
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop trigger domains_forwarding_notify on domains;
drop function domain_forwarding_changed();
drop index inboxes_domain_idx;
drop index inbox_orders_checkout_key;
alter table inbox_orders drop column checkout_session_id, drop column line_index,
	drop column fulfilled_at, drop column refunded_at, drop column refund_cents;
drop index domain_subscriptions_live_key;
alter table domain_subscriptions drop column checkout_session_id;
`,
		)
		.execute(db)
}
