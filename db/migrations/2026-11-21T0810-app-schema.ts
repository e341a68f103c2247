import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Table names as SPEC.md spells them (team_member_workspace_acess included).
// Every row of product data carries the owner's user_id; job status is 0 pending,
// 1 processing, 2 success, 3 fail.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table profiles (
	user_id uuid primary key references auth.users(id) on delete cascade,
	primary_user_id uuid references auth.users(id) on delete set null,
	is_ltd boolean not null default false,
	full_name text,
	company text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index profiles_primary_user_id_idx on profiles (primary_user_id) where primary_user_id is not null;

create table settings (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null unique references auth.users(id) on delete cascade,
	emailbison_api_url text not null default '',
	super_admin_api_key text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);

create table roles (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	role text not null check (role in ('admin', 'editor')),
	created_at timestamptz not null default now(),
	unique (user_id, role)
);

create table price_plans (
	id integer primary key,
	name text not null,
	interval text not null check (interval in ('month', 'year')),
	tier text not null check (tier in ('starter', 'unlimited')),
	price_cents integer not null check (price_cents >= 0),
	monthly_credits integer not null check (monthly_credits >= 0),
	stripe_price_id text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);

create table subscriptions (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	active_plan integer not null references price_plans(id),
	status text not null check (status in ('incomplete', 'active', 'past_due', 'canceled', 'expired')),
	billing_date timestamptz,
	expire_date timestamptz,
	cancel_at_period_end boolean not null default false,
	provider text not null default 'test' check (provider in ('stripe', 'test', 'admin')),
	provider_customer_id text,
	provider_subscription_id text unique,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index subscriptions_user_status_idx on subscriptions (user_id, status, expire_date desc);

create table credit_balances (
	user_id uuid primary key references auth.users(id) on delete cascade,
	balance bigint not null default 0 check (balance >= 0),
	updated_at timestamptz not null default now()
);

-- The credits ledger: append-only; balance_after is the account balance after this entry.
create table credits (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	delta bigint not null check (delta <> 0),
	balance_after bigint not null check (balance_after >= 0),
	reason text not null,
	reference text,
	created_at timestamptz not null default now()
);
create index credits_user_created_idx on credits (user_id, created_at desc);
create unique index credits_user_reason_reference_key on credits (user_id, reason, reference) where reference is not null;

create table workspaces (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	name text not null check (length(name) between 1 and 80),
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create unique index workspaces_user_name_key on workspaces (user_id, lower(name));

create table team_members (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	email text not null,
	role text not null check (role in ('admin', 'editor')),
	access_all_workspaces boolean not null default true,
	member_user_id uuid references auth.users(id) on delete cascade,
	status text not null default 'invited' check (status in ('invited', 'active', 'revoked')),
	scopes text[] not null default '{}',
	invitation_token_hash text unique,
	expires_at timestamptz,
	invited_at timestamptz not null default now(),
	accepted_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create unique index team_members_owner_email_key on team_members (user_id, lower(email)) where status <> 'revoked';
create index team_members_member_user_id_idx on team_members (member_user_id) where status = 'active';

create table team_member_workspace_acess (
	team_member_id uuid not null references team_members(id) on delete cascade,
	workspace_id uuid not null references workspaces(id) on delete cascade,
	primary key (team_member_id, workspace_id)
);
create index team_member_workspace_acess_workspace_idx on team_member_workspace_acess (workspace_id);

create table api_keys (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	provider text not null,
	encrypted_key text not null,
	last4 text not null,
	label text,
	base_url text,
	verified_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now(),
	unique (user_id, provider)
);

create table apollo_url_templates (
	id uuid primary key default gen_random_uuid(),
	user_id uuid references auth.users(id) on delete cascade,
	name text not null,
	url text not null,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index apollo_url_templates_user_idx on apollo_url_templates (user_id);

create table processing_list (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete restrict,
	name text not null,
	source_type text not null check (source_type in ('apollo', 'upload')),
	status smallint not null default 0 check (status between 0 and 3),
	requested integer not null default 0,
	found integer not null default 0,
	progress integer not null default 0,
	error text,
	file_name text,
	file_size bigint,
	started_at timestamptz,
	finished_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index processing_list_owner_idx on processing_list (user_id, workspace_id, created_at desc);

create table company_scraping_list (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete restrict,
	name text not null,
	source_type text not null check (source_type in ('domains', 'apollo', 'upload')),
	status smallint not null default 0 check (status between 0 and 3),
	requested integer not null default 0,
	found integer not null default 0,
	progress integer not null default 0,
	error text,
	started_at timestamptz,
	finished_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index company_scraping_list_owner_idx on company_scraping_list (user_id, workspace_id, created_at desc);

create table apollo_requests (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	list_id uuid references processing_list(id) on delete cascade,
	company_list_id uuid references company_scraping_list(id) on delete cascade,
	url text not null,
	requested_count integer not null check (requested_count > 0),
	key_kind text not null check (key_kind in ('apifyKey', 'credits')),
	actor_id text,
	run_id text,
	dataset_id text,
	status smallint not null default 0 check (status between 0 and 3),
	error text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now(),
	check ((list_id is null) <> (company_list_id is null))
);
create index apollo_requests_list_idx on apollo_requests (list_id);
create index apollo_requests_company_list_idx on apollo_requests (company_list_id);

create table leads (
	id uuid primary key default gen_random_uuid(),
	list_id uuid not null references processing_list(id) on delete cascade,
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete set null,
	email text not null,
	first_name text,
	last_name text,
	title text,
	company_name text,
	company_domain text,
	linkedin_url text,
	location text,
	phone text,
	email_status text,
	data jsonb not null default '{}',
	created_at timestamptz not null default now()
);
create unique index leads_list_email_key on leads (list_id, lower(email));

create table companies (
	id uuid primary key default gen_random_uuid(),
	list_id uuid not null references company_scraping_list(id) on delete cascade,
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete set null,
	name text,
	domain text,
	industry text,
	employees integer,
	location text,
	linkedin_url text,
	description text,
	data jsonb not null default '{}',
	created_at timestamptz not null default now()
);
create unique index companies_list_domain_key on companies (list_id, lower(domain));

create table ai_enrichments (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	name text not null,
	prompt text not null,
	output_column text not null,
	output_format text not null default 'text' check (output_format in ('text', 'json')),
	output_fields jsonb not null default '[]',
	model text not null,
	provider text not null default 'openai',
	temperature numeric not null default 0,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index ai_enrichments_user_idx on ai_enrichments (user_id);

create table enrichment_chain (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	name text not null,
	steps jsonb not null default '[]',
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index enrichment_chain_user_idx on enrichment_chain (user_id);

create table domains (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete restrict,
	name text not null,
	status text not null default 'active',
	source text not null check (source in ('imported', 'ordered')),
	forward_to text,
	redirect_code smallint check (redirect_code in (301, 302)),
	forward_keep_path boolean not null default true,
	dns_checked_at timestamptz,
	dns jsonb,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now(),
	unique (user_id, name)
);
create index domains_forwarding_idx on domains (name) where forward_to is not null;
create index domains_workspace_idx on domains (workspace_id);

create table domain_subscriptions (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	domain_id uuid not null references domains(id) on delete cascade,
	status text not null check (status in ('incomplete', 'active', 'past_due', 'canceled', 'expired')),
	price_cents integer not null check (price_cents >= 0),
	billing_date timestamptz,
	expire_date timestamptz,
	cancel_at_period_end boolean not null default false,
	provider text not null default 'test',
	provider_subscription_id text unique,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index domain_subscriptions_user_idx on domain_subscriptions (user_id, domain_id);

create table inbox_orders (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete restrict,
	provider text not null check (provider in ('google', 'microsoft')),
	status smallint not null default 0 check (status between 0 and 3),
	inboxes_per_domain integer not null check (inboxes_per_domain > 0),
	domain_ids uuid[] not null default '{}',
	personas jsonb not null default '[]',
	address_patterns text[] not null default '{}',
	total_cents integer not null default 0,
	payment_reference text,
	error text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index inbox_orders_owner_idx on inbox_orders (user_id, workspace_id, created_at desc);
create index inbox_orders_status_idx on inbox_orders (status, created_at);

create table inboxes (
	id uuid primary key default gen_random_uuid(),
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete restrict,
	order_id uuid references inbox_orders(id) on delete set null,
	domain_id uuid references domains(id) on delete set null,
	provider text not null check (provider in ('google', 'microsoft')),
	address text not null unique,
	first_name text,
	last_name text,
	status text not null default 'active',
	encrypted_credentials text,
	cancel_at_period_end boolean not null default false,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index inboxes_owner_idx on inboxes (user_id, workspace_id);

create table emailbison_upload (
	id uuid primary key default gen_random_uuid(),
	list_id uuid not null references processing_list(id) on delete cascade,
	user_id uuid not null references auth.users(id) on delete cascade,
	workspace_id uuid references workspaces(id) on delete set null,
	eb_workspace_id text not null,
	campaign_id text,
	status smallint not null default 0 check (status between 0 and 3),
	mapping jsonb not null default '{}',
	total integer not null default 0,
	sent integer not null default 0,
	created integer not null default 0,
	updated integer not null default 0,
	rejected integer not null default 0,
	last_batch integer not null default 0,
	error text,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index emailbison_upload_list_idx on emailbison_upload (list_id, created_at desc);
create index emailbison_upload_owner_idx on emailbison_upload (user_id, workspace_id, created_at desc);

create table onboarding (
	user_id uuid primary key references auth.users(id) on delete cascade,
	answers jsonb not null default '{}',
	phone text,
	completed_at timestamptz,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);

create table check_server (
	id uuid primary key default gen_random_uuid(),
	service text not null,
	ok boolean not null,
	latency_ms integer,
	detail text,
	checked_at timestamptz not null default now()
);
create index check_server_service_idx on check_server (service, checked_at desc);

create table audit_log (
	id uuid primary key default gen_random_uuid(),
	actor_user_id uuid references auth.users(id) on delete set null,
	action text not null,
	target_type text,
	target_id text,
	before jsonb,
	after jsonb,
	created_at timestamptz not null default now()
);
create index audit_log_created_idx on audit_log (created_at desc);
create index audit_log_action_idx on audit_log (action, created_at desc);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop table audit_log, check_server, onboarding, emailbison_upload, inboxes, inbox_orders,
			domain_subscriptions, domains, enrichment_chain, ai_enrichments, companies, leads, apollo_requests,
			company_scraping_list, processing_list, apollo_url_templates, api_keys, team_member_workspace_acess,
			team_members, workspaces, credits, credit_balances, subscriptions, price_plans, roles, settings, profiles;`,
		)
		.execute(db)
}
