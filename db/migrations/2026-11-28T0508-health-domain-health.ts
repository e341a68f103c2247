import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Domain and inbox health (issue 38, decision 0095). One row per domain with its latest report
// (the page and the whole-account view read it, sorted worst first by status rank and score) and
// the DKIM selector its owner recorded; every finished check also adds a history row, whose
// status change from healthy to failing is what notifies the owner.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table domain_health (
	domain_id uuid primary key references domains (id) on delete cascade,
	account_id uuid not null references auth.users (id) on delete cascade,
	dkim_selector text,
	-- healthy, warning, failing, unknown (could not check everything); null: never checked
	status text,
	-- 0 failing first .. 3 healthy, 4 never checked (the whole-account view's order)
	status_rank smallint not null default 4,
	score smallint,
	grade text,
	report jsonb,
	pending boolean not null default false,
	checked_at timestamptz,
	updated_at timestamptz not null default now()
);
create index domain_health_worst_idx on domain_health (account_id, status_rank, score nulls last);

create table domain_health_history (
	id bigint generated always as identity primary key,
	domain_id uuid not null references domains (id) on delete cascade,
	status text not null,
	score smallint,
	grade text,
	report jsonb not null,
	checked_at timestamptz not null default now()
);
create index domain_health_history_domain_idx on domain_health_history (domain_id, id desc);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop table domain_health_history; drop table domain_health;`).execute(db)
}
