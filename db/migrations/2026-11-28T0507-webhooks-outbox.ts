import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Signed webhooks (issue 37, decision 0094). An account's endpoints (the signing secret sealed
// at rest, the previous one kept through a rotation's overlap), the outbox of events written in
// the transaction of the change that caused them, and one delivery row per (endpoint, event),
// whose attempts are pg-boss jobs. A domain's status changes in several places (subscriptions
// start and expire, renewals): a trigger records that event, so no path can change it without
// its event, in the same transaction.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table webhook_endpoints (
	id uuid primary key default gen_random_uuid(),
	account_id uuid not null references auth.users (id) on delete cascade,
	url text not null,
	description text not null default '',
	events text[] not null,
	-- empty: every workspace and the account's own events
	workspace_ids uuid[] not null default '{}',
	secret_sealed text not null,
	previous_secret_sealed text,
	previous_secret_until timestamptz,
	-- enabled, paused, disabled (failing for too long)
	status text not null default 'enabled',
	disabled_reason text,
	-- the owner was mailed about the disabling (the mail job's once)
	disabled_mailed_at timestamptz,
	failing_since timestamptz,
	created_by uuid references auth.users (id) on delete set null,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index webhook_endpoints_account_idx on webhook_endpoints (account_id, created_at);

-- the account's threshold for credits.below_threshold (none: never sent)
create table webhook_settings (
	account_id uuid primary key references auth.users (id) on delete cascade,
	credits_below integer,
	updated_at timestamptz not null default now()
);

create table webhook_events (
	id uuid primary key default gen_random_uuid(),
	seq bigint generated always as identity,
	account_id uuid not null references auth.users (id) on delete cascade,
	workspace_id uuid,
	type text not null,
	data jsonb not null,
	-- a test event goes to this endpoint only
	endpoint_id uuid references webhook_endpoints (id) on delete cascade,
	created_at timestamptz not null default clock_timestamp(),
	dispatched_at timestamptz
);
create index webhook_events_undispatched_idx on webhook_events (seq) where dispatched_at is null;

create table webhook_deliveries (
	id bigint generated always as identity primary key,
	endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
	event_id uuid not null references webhook_events (id) on delete cascade,
	-- pending, succeeded, failed (retries spent)
	status text not null default 'pending',
	attempts integer not null default 0,
	-- the place in the retry schedule of the current round (a redelivery starts a round)
	round_attempts integer not null default 0,
	next_attempt_at timestamptz,
	last_status_code integer,
	last_latency_ms integer,
	last_response text,
	last_error text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now(),
	delivered_at timestamptz,
	constraint webhook_deliveries_once unique (endpoint_id, event_id)
);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, id desc);

create function webhook_domain_status() returns trigger language plpgsql as $$
begin
	insert into webhook_events (account_id, workspace_id, type, data)
	select new.user_id, new.workspace_id, 'domain.status_changed', jsonb_build_object(
		'domain_id', new.id, 'name', new.name, 'workspace_id', new.workspace_id,
		'previous_status', old.status, 'status', new.status)
	where exists (select 1 from webhook_endpoints e where e.account_id = new.user_id and e.status = 'enabled');
	return null;
end $$;
create trigger domains_webhook_status after update of status on domains
	for each row when (old.status is distinct from new.status) execute function webhook_domain_status();
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop trigger domains_webhook_status on domains; drop function webhook_domain_status();
drop table webhook_deliveries; drop table webhook_events; drop table webhook_settings; drop table webhook_endpoints;`,
		)
		.execute(db)
}
