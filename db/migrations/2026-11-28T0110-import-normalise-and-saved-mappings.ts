import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Decision 0081. Two things the import needs in the database:
//
// normalize_company_domain(text): a company's domain as it is kept, from whatever a file
// holds ('https://www.Acme.com/about' -> 'acme.com'): lower case, without scheme, user,
// port, path, query, fragment, a leading "www." and trailing dots; null when nothing is
// left. Immutable, so the import's set operations, a lead's edit and a re-map all apply the
// same rule in SQL.
//
// import_mappings: an account's column mappings by the normalised headers of the file they
// were made for, so that the next file with the same headers maps itself. One row per
// account and header signature, replaced by the latest import of that shape.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create function normalize_company_domain(value text) returns text
language sql immutable parallel safe as $$
	select nullif(rtrim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
		regexp_replace(lower(btrim(value)), '^[a-z][a-z0-9+.-]*://', ''),
		'[/?#\\\\].*$', ''),
		'^.*@', ''),
		':[0-9]*$', ''),
		'^www[0-9]*\\.', ''), '.'), '')
$$;

create table import_mappings (
	account_id uuid not null references auth.users(id) on delete cascade,
	signature text not null,
	-- {"email": 0, "first_name": 1, ..., "keepExtra": true}: column indexes by lead field
	mapping jsonb not null,
	updated_at timestamptz not null default now(),
	primary key (account_id, signature)
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql
		.raw(
			`drop table import_mappings;
			drop function normalize_company_domain(text);`,
		)
		.execute(db)
}
