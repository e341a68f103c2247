import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// Admin area (issue 9): credit pack prices an admin set. CREDIT_PACKS names the packs on offer
// and their default prices; a row here overrides a pack's price for new checkouts.
export async function up(db: Kysely<any>) {
	await sql
		.raw(
			`
create table credit_pack_prices (
	credits integer primary key check (credits > 0),
	price_cents integer not null check (price_cents >= 0),
	updated_at timestamptz not null default now()
);
`,
		)
		.execute(db)
}

export async function down(db: Kysely<any>) {
	await sql.raw(`drop table credit_pack_prices;`).execute(db)
}
