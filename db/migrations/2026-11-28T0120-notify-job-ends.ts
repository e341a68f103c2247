import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// A notification per long job's end (issue 34 point 4, decision 0082). The unique key (kind,
// subject, round) makes "one notification per job end" a fact of the database: the job's end
// inserts it with ON CONFLICT DO NOTHING in the transaction that ends the job, so a crash and a
// retry, or a second worker finishing the same job, finds the row there and adds none. `round`
// tells a user's retry of the same list or run (a new end) from a job's own retry (the same end).
// The mail is sent from the row by its own job (an outbox): `mailed_at` records it.
// Rows belong to the account (the tables of the jobs record the account, not the person) and to
// the job's workspace; each person's reads are rows of notification_reads.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table notifications (
	id bigint generated always as identity primary key,
	account_id uuid not null references auth.users (id) on delete cascade,
	workspace_id uuid references workspaces (id) on delete set null,
	-- scrape, import, enrichment, upload, inbox-order, renewal
	kind text not null,
	subject_id text not null,
	round integer not null default 0,
	failed boolean not null,
	title text not null,
	body text not null default '',
	link text not null,
	created_at timestamptz not null default now(),
	mailed_at timestamptz,
	constraint notifications_once unique (kind, subject_id, round)
);
create index notifications_account_idx on notifications (account_id, id desc);

create table notification_reads (
	notification_id bigint not null references notifications (id) on delete cascade,
	user_id uuid not null references auth.users (id) on delete cascade,
	read_at timestamptz not null default now(),
	primary key (user_id, notification_id)
);

-- the kinds a person gets no mail for (all are mailed by default); read_through: "mark all
-- read" up to this id, so the bell's count reads only what came after it
create table notification_settings (
	user_id uuid primary key references auth.users (id) on delete cascade,
	mail_off text[] not null default '{}',
	read_through bigint not null default 0,
	updated_at timestamptz not null default now()
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop table notification_settings; drop table notification_reads; drop table notifications;`,
		)
		.execute(db)
}
