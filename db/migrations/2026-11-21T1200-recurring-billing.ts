import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Monthly billing of inbox orders and the period of each inbox (decision 0013):
// - inbox_orders: billing state of the order's recurring charge (one Stripe subscription with a
//   quantity, or the test-mode equivalent renewed by the subscription-renewal job), the unit
//   price, how many inboxes are billed, and the date the order is paid through.
// - inboxes: period_end (paid through; renewals move it on), ended_at (when a cancelled inbox
//   ended at its period end).
// - domain_subscriptions: changes NOTIFY domain_forwarding_changed too (the forwarding table
//   keeps each domain's paid-through time).
// Orders that existed before get their first month from their payment date.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table inbox_orders
	add column billing_status text not null default 'active'
		check (billing_status in ('active', 'past_due', 'canceled', 'ended')),
	add column billing_provider text not null default 'test'
		check (billing_provider in ('stripe', 'test')),
	add column provider_subscription_id text,
	add column price_cents integer not null default 0 check (price_cents >= 0),
	add column quantity integer not null default 0 check (quantity >= 0),
	add column billing_date timestamptz,
	add column paid_through timestamptz;
create unique index inbox_orders_provider_subscription_key on inbox_orders (provider_subscription_id)
	where provider_subscription_id is not null;
create index inbox_orders_renewal_idx on inbox_orders (paid_through)
	where billing_status in ('active', 'past_due');

alter table inboxes
	add column period_end timestamptz,
	add column ended_at timestamptz;
create index inboxes_period_end_idx on inboxes (period_end) where status = 'active';

create index domain_subscriptions_provider_subscription_idx
	on domain_subscriptions (provider_subscription_id) where provider_subscription_id is not null;

-- The forwarding table holds each domain's paid-through time: a renewal (or an end) of its
-- subscription refreshes it in every process, as a change to domains does.
create trigger domain_subscriptions_forwarding_notify
	after insert or update or delete or truncate on domain_subscriptions
	for each statement execute function domain_forwarding_changed();

update inbox_orders set
	billing_provider = case when payment_reference like 'stripe:%' then 'stripe' else 'test' end,
	quantity = inboxes_per_domain * coalesce(array_length(domain_ids, 1), 0),
	price_cents = case when inboxes_per_domain * coalesce(array_length(domain_ids, 1), 0) > 0
		then total_cents / (inboxes_per_domain * array_length(domain_ids, 1)) else 0 end,
	billing_date = created_at,
	paid_through = created_at + interval '1 month',
	billing_status = case when status = 3 then 'canceled' else 'active' end;
update inboxes set period_end = o.paid_through
	from inbox_orders o where o.id = inboxes.order_id;
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop trigger domain_subscriptions_forwarding_notify on domain_subscriptions;
drop index domain_subscriptions_provider_subscription_idx;
drop index inboxes_period_end_idx;
alter table inboxes drop column period_end, drop column ended_at;
drop index inbox_orders_renewal_idx;
drop index inbox_orders_provider_subscription_key;
alter table inbox_orders drop column billing_status, drop column billing_provider,
	drop column provider_subscription_id, drop column price_cents, drop column quantity,
	drop column billing_date, drop column paid_through;
`,
		)
		.execute(db)
}
