import { withDatabase } from './support.ts'

export const FAKE_OPENAI_KEY = 'sk-fake-openai-0000000000000000'

/** A finished lead list of `count` leads for the signed-in account (by its email). */
export async function seedLeadList(email: string, name: string, count: number) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			'select id from auth.users where email = $1',
			[email],
		)
		const userId = rows[0]!.id
		const list = await client.query<{ id: string }>(
			`insert into processing_list (user_id, name, source_type, status, found, progress)
			 values ($1, $2, 'upload', 2, $3, 100) returning id`,
			[userId, name, count],
		)
		const listId = list.rows[0]!.id
		for (let i = 0; i < count; i++) {
			await client.query(
				`insert into leads (list_id, user_id, email, first_name, last_name, company_name, company_domain)
				 values ($1, $2, $3, $4, $5, $6, $7)`,
				[
					listId,
					userId,
					`lead${i}@acme${i}.com`,
					`First${i}`,
					`Last${i}`,
					`Acme ${i}`,
					`acme${i}.com`,
				],
			)
		}
		return listId
	})
}

/**
 * A finished company list of `count` companies for the account (by its email):
 * `${companyName} {i}` at `${domainStem}{i}.example`, i from 1.
 */
export async function seedCompanyList(
	email: string,
	name: string,
	count: number,
	{ companyName = 'Firm', domainStem = 'firm' } = {},
) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into company_scraping_list (user_id, name, source_type, status, found, progress)
			 select id, $2, 'domains', 2, $3, 100 from auth.users where email = $1
			 returning id`,
			[email, name, count],
		)
		await client.query(
			`insert into companies (list_id, user_id, name, domain)
			 select $1, l.user_id, $3 || ' ' || i, $4 || i || '.example'
			 from company_scraping_list l, generate_series(1, $2::int) i where l.id = $1`,
			[rows[0]!.id, count, companyName, domainStem],
		)
		return rows[0]!.id
	})
}

/** An AI enrichment of the account (by its email), as the enrichments page saves it. */
export async function seedEnrichment(
	email: string,
	enrichment: { name: string; prompt: string; outputColumn: string; jsonFields?: string[] },
) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into ai_enrichments (user_id, name, prompt, output_column, output_format, output_fields, model)
			 select id, $2, $3, $4, $5, $6, 'gpt-4o-mini' from auth.users where email = $1
			 returning id`,
			[
				email,
				enrichment.name,
				enrichment.prompt,
				enrichment.outputColumn,
				enrichment.jsonFields ? 'json' : 'text',
				JSON.stringify((enrichment.jsonFields ?? []).map((name) => ({ name, type: 'string' }))),
			],
		)
		return rows[0]!.id
	})
}

/** Sets the title of the list's leads: `titles[i]` for lead i (by its email), else `other`. */
export async function setTitles(listId: string, titles: Record<number, string>, other: string) {
	await withDatabase(async (client) => {
		await client.query('update leads set title = $2 where list_id = $1', [listId, other])
		for (const [i, title] of Object.entries(titles))
			await client.query(`update leads set title = $3 where list_id = $1 and email like $2`, [
				listId,
				`lead${i}@%`,
				title,
			])
	})
}
