import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// CSV import (issue 5) and the list page at 1,000,000 rows:
// - leads.id becomes time-ordered (uuidv7, built in from PostgreSQL 18; an equivalent SQL
//   function before): random uuids scatter every insert across the primary key, which made
//   a 1,000,000-row import 2.5 times slower; ordered ids also give the list its "added" order.
// - csv_imports: one per uploaded list: the file, the column mapping, and the checkpoint the
//   csv-import job advances in the same transaction as the rows it writes.
// - csv_import_errors: invalid and duplicate rows by the line they start on.
// - indexes for sorting and prefix search on the list page: (list_id, key, id) with the keys
//   in the "C" collation, so that `like 'abc%'` uses them whatever the database's collation.
export async function up(db: Kysely<any>) {
	const { rows } = await sql<{
		version: number
	}>`select current_setting('server_version_num')::int as version`.execute(db)
	if (rows[0]!.version < 180000) {
		await sql
			.raw(
				`
create function uuidv7() returns uuid language sql volatile parallel safe as $$
	select encode(
		set_bit(set_bit(
			overlay(uuid_send(gen_random_uuid())
				placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
				from 1 for 6),
			52, 1), 53, 1),
		'hex')::uuid
$$;`,
			)
			.execute(db)
	}
	await sql
		.raw(
			`
alter table leads alter column id set default uuidv7();

create table csv_imports (
	list_id uuid primary key references processing_list(id) on delete cascade,
	user_id uuid not null references auth.users(id) on delete cascade,
	file_path text not null,
	delimiter text not null default ',' check (length(delimiter) = 1),
	has_header boolean not null,
	-- { "email": 0, "first_name": 2, ..., "extra": [[column, "header"], ...] }
	mapping jsonb not null,
	rows_total integer not null check (rows_total >= 0),
	bytes_total bigint not null check (bytes_total >= 0),
	-- the checkpoint: everything before bytes_done is written; the next record starts on next_line
	bytes_done bigint not null default 0,
	next_line integer not null default 1,
	rows_done integer not null default 0,
	imported integer not null default 0,
	invalid integer not null default 0,
	duplicates integer not null default 0,
	batches integer not null default 0,
	created_at timestamptz not null default now(),
	updated_at timestamptz not null default now()
);
create index csv_imports_user_idx on csv_imports (user_id);

create table csv_import_errors (
	list_id uuid not null references processing_list(id) on delete cascade,
	line integer not null,
	kind text not null check (kind in ('invalid', 'duplicate')),
	email text,
	message text not null,
	primary key (list_id, line)
);

create index leads_list_id_idx on leads (list_id, id);
create index leads_list_email_sort_idx on leads (list_id, (lower(email)) collate "C", id);
create index leads_list_first_name_sort_idx on leads (list_id, (coalesce(lower(first_name), '')) collate "C", id);
create index leads_list_last_name_sort_idx on leads (list_id, (coalesce(lower(last_name), '')) collate "C", id);
create index leads_list_company_sort_idx on leads (list_id, (coalesce(lower(company_name), '')) collate "C", id);
create index processing_list_uploads_idx on processing_list (user_id, created_at desc) where source_type = 'upload';
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`
drop index processing_list_uploads_idx;
drop index leads_list_id_idx, leads_list_email_sort_idx, leads_list_first_name_sort_idx,
	leads_list_last_name_sort_idx, leads_list_company_sort_idx;
drop table csv_import_errors, csv_imports;
alter table leads alter column id set default gen_random_uuid();
`,
		)
		.execute(db)
	await sql.raw(`drop function if exists public.uuidv7()`).execute(db)
}
