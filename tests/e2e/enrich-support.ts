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
