import { sql } from 'kysely'
import { expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { down, up } from '../../../db/migrations/2026-11-28T0130-credits-what-each-line-is-for.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertCompanyList, insertLeadList } from '../../../tests/support/enrichment.ts'

// The ledger lines written before decision 0083 get what they were for from their references
// (and an admin's note from the audit row of the same change), where the data allows.
test('the migration fills in what the existing ledger lines were for', async () => {
	await down(db)
	const user = await insertUser(db)
	const other = await insertUser(db)
	const listId = await insertLeadList(user.id, 1)
	const companyListId = await insertCompanyList(user.id, 1)
	const request = await db
		.insertInto('apollo_requests')
		.values({
			user_id: user.id,
			company_list_id: companyListId,
			url: 'u',
			requested_count: 1,
			key_kind: 'credits',
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const run = await db
		.insertInto('enrichment_runs')
		.values({
			user_id: user.id,
			list_id: listId,
			name: 'Opener',
			key_kind: 'credits',
			steps: '[]',
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const checkoutId = crypto.randomUUID()
	const subscriptionId = crypto.randomUUID()
	const goneRun = crypto.randomUUID()
	const line = async (
		accountId: string,
		delta: number,
		after: number,
		reason: string,
		ref: string | null,
	) =>
		(
			await sql<{
				id: string
			}>`insert into credits (user_id, delta, balance_after, reason, reference)
				values (${accountId}, ${delta}, ${after}, ${reason}, ${ref}) returning id`.execute(db)
		).rows[0]!.id
	const lines = {
		pack: await line(user.id, 1000, 1000, 'purchase', `checkout:${checkoutId}:0`),
		plan: await line(
			user.id,
			2000,
			3000,
			'plan',
			`subscription:${subscriptionId}:2026-11-01T00:00:00.000Z`,
		),
		run: await line(user.id, -10, 2990, 'reservation', `enrich:${run.id}:2`),
		gone: await line(user.id, -5, 2985, 'reservation', `enrich:${goneRun}:1`),
		search: await line(user.id, -30, 2955, 'reservation', `lead-scrape:${request.id}:1`),
		companies: await line(user.id, -4, 2951, 'reservation', `company-scrape:${companyListId}:1`),
		grant: await line(user.id, 50, 3001, 'admin', null),
		// another account's line naming this account's search: not filled from it
		theirs: await line(other.id, -1, 0, 'reservation', `lead-scrape:${request.id}:1`),
		odd: await line(user.id, 1, 3002, 'admin', 'seed'),
		// a reference that only looks like one: left alone, the migration does not fail on it
		bad: await line(user.id, -1, 3001, 'reservation', `enrich:${'-'.repeat(36)}:1`),
	}
	await db
		.insertInto('audit_log')
		.values({
			action: 'admin.credits.grant',
			target_type: 'account',
			target_id: user.id,
			before: JSON.stringify({ balance: 2951 }),
			after: JSON.stringify({ balance: 3001, amount: 50, note: 'Sorry for Monday' }),
		})
		.execute()
	await up(db)

	const rows = await db
		.selectFrom('credits')
		.select([
			'id',
			'list_id',
			'company_list_id',
			'enrichment_run_id',
			'checkout_session_id',
			'subscription_id',
			'note',
		])
		.execute()
	const byId = new Map(rows.map(({ id, ...rest }) => [id, rest]))
	const none = {
		list_id: null,
		company_list_id: null,
		enrichment_run_id: null,
		checkout_session_id: null,
		subscription_id: null,
		note: null,
	}
	expect(byId.get(lines.pack)).toEqual({ ...none, checkout_session_id: checkoutId })
	expect(byId.get(lines.plan)).toEqual({ ...none, subscription_id: subscriptionId })
	expect(byId.get(lines.run)).toEqual({ ...none, enrichment_run_id: run.id, list_id: listId })
	expect(byId.get(lines.gone)).toEqual({ ...none, enrichment_run_id: goneRun })
	expect(byId.get(lines.search)).toEqual({ ...none, company_list_id: companyListId })
	expect(byId.get(lines.companies)).toEqual({ ...none, company_list_id: companyListId })
	expect(byId.get(lines.grant)).toEqual({ ...none, note: 'Sorry for Monday' })
	expect(byId.get(lines.theirs)).toEqual(none)
	expect(byId.get(lines.odd)).toEqual(none)
	expect(byId.get(lines.bad)).toEqual(none)
})
