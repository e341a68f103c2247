import { RouterContextProvider } from 'react-router'
import { expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { insertLeadList } from '../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../tests/support/jobs.ts'
import { requestContext, type AccountContext } from '../context.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import { commitCredits, reserveCredits } from '../services/billing/credits.server.ts'
import * as page from './enrich-list.tsx'

// The lead list enrich page's loader and action for an account that does not own the list.

function args(account: AccountContext, listId: string, form?: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const url = `http://localhost/lists/${listId}/enrich`
	const request = form
		? new Request(url, { method: 'POST', body: new URLSearchParams(form) })
		: new Request(url)
	return { request, context, params: { listId } } as never
}

const outcome = (promise: Promise<unknown>) => promise.then(() => 200, statusOf)

test("another account's lead list is a 404 for the page and for each of its forms, bad input or not", async () => {
	const owner = await accountWithCredits(100)
	const other = await accountWithCredits(100)
	const listId = await insertLeadList(owner.accountId!, 3)
	expect(await outcome(page.loader(args(owner, listId)))).toBe(200)
	expect(await outcome(page.loader(args(other, listId)))).toBe(404)
	// an empty form (no target, no payment) would be a 400 on one's own list
	for (const intent of ['estimate', 'run', 'cancel', 'retry-failed'])
		expect(await outcome(page.action(args(other, listId, { intent })))).toBe(404)
	const runs = await db
		.selectFrom('enrichment_runs')
		.select('id')
		.where('list_id', '=', listId)
		.execute()
	expect(runs).toHaveLength(0)
})

test('each run on the enrich page says what it cost, net of what came back (decision 0083)', async () => {
	const owner = await accountWithCredits(100)
	const accountId = owner.accountId!
	const listId = await insertLeadList(accountId, 3)
	const run = await db
		.insertInto('enrichment_runs')
		.values({
			user_id: accountId,
			list_id: listId,
			name: 'Icebreaker',
			key_kind: 'credits',
			steps: JSON.stringify([]),
			status: 2,
			prepared: true,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const subject = { listId, enrichmentRunId: run.id }
	await reserveCredits(db, { accountId, amount: 12, reference: `run-${run.id}`, subject })
	await commitCredits(db, { accountId, reference: `run-${run.id}`, used: 9 })
	const data = (await page.loader(args(owner, listId))) as {
		runs: { id: string; credits: number }[]
	}
	expect(data.runs.find((r) => r.id === run.id)?.credits).toBe(9)
})
