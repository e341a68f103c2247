import { sql, type Kysely } from 'kysely'

// Frozen in time: never import app code here.
// An enrichment's temperature may be unset (null): the model's own default, and nothing is sent
// (gpt-5 and o-series models refuse any value but their default, issue 39 point 6). Rows
// already saved keep their value: the form filled in 0 for everyone, so a 0 cannot be told
// from a choice, and turning it into "unset" would change the answers of models that honour
// it and miss every cached answer (decision 0077).
export async function up(db: Kysely<any>) {
	await sql`alter table ai_enrichments alter column temperature drop not null, alter column temperature drop default`.execute(
		db,
	)
}

export async function down(db: Kysely<any>) {
	await sql`update ai_enrichments set temperature = 0 where temperature is null`.execute(db)
	await sql`alter table ai_enrichments alter column temperature set default 0, alter column temperature set not null`.execute(
		db,
	)
}
