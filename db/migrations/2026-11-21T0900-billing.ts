import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Billing: checkout sessions (Stripe or the test-payment page), processed Stripe
// events (webhook idempotency), Stripe customers per account, credit
// reservations for jobs, and what the expiry job needs on subscriptions.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
alter table subscriptions add column credits_next_grant_at timestamptz;
alter table subscriptions add column canceled_at timestamptz;
-- One active subscription per account: a new one replaces the old in the same transaction.
create unique index subscriptions_one_active_per_user on subscriptions (user_id) where status = 'active';
create index subscriptions_expiry_idx on subscriptions (expire_date) where status = 'active';
create index subscriptions_credit_grant_idx on subscriptions (credits_next_grant_at)
	where status = 'active' and credits_next_grant_at is not null;
create index subscriptions_provider_customer_idx on subscriptions (provider_customer_id)
	where provider_customer_id is not null;

create table billing_customers (
	user_id uuid primary key references auth.users(id) on delete cascade,
	stripe_customer_id text not null unique,
	created_at timestamptz not null default now()
);

-- line_items: [{ kind, description, quantity, unit_amount_cents, interval?, data }]
create table checkout_sessions (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	created_by uuid references auth.users(id) on delete set null,
	provider text not null check (provider in ('stripe', 'test')),
	mode text not null check (mode in ('payment', 'subscription')),
	status text not null default 'open' check (status in ('open', 'completed', 'declined', 'expired')),
	line_items jsonb not null check (jsonb_typeof(line_items) = 'array' and jsonb_array_length(line_items) > 0),
	total_cents integer not null check (total_cents >= 0),
	currency text not null default 'usd',
	success_path text not null,
	cancel_path text not null,
	provider_session_id text unique,
	provider_url text,
	completed_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index checkout_sessions_user_idx on checkout_sessions (user_id, created_at desc);

-- Stripe webhook events already processed (idempotency per event id).
create table stripe_events (
	id text primary key,
	type text not null,
	received_at timestamptz not null default now()
);

-- Credits held for a job: debited at reserve, the unused part refunded when settled.
create table credit_reservations (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	reference text not null,
	reason text not null,
	amount bigint not null check (amount > 0),
	used bigint check (used >= 0 and used <= amount),
	status text not null default 'held' check (status in ('held', 'settled')),
	created_at timestamptz not null default now(),
	settled_at timestamptz,
	unique (user_id, reference)
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop table credit_reservations, stripe_events, checkout_sessions, billing_customers;
			drop index subscriptions_one_active_per_user, subscriptions_expiry_idx,
				subscriptions_credit_grant_idx, subscriptions_provider_customer_idx;
			alter table subscriptions drop column credits_next_grant_at, drop column canceled_at;`,
		)
		.execute(db)
}
