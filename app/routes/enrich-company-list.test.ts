import { RouterContextProvider } from 'react-router'
import { expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { accountWithCredits } from '../../tests/support/jobs.ts'
import { requestContext, type AccountContext } from '../context.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import * as page from './enrich-company-list.tsx'

// The company enrich page's loader and action for an account that does not own the list.

function args(account: AccountContext, listId: string, form?: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	const url = `http://localhost/company-lists/${listId}/enrich`
	const request = form
		? new Request(url, { method: 'POST', body: new URLSearchParams(form) })
		: new Request(url)
	return { request, context, params: { listId } } as never
}

const outcome = (promise: Promise<unknown>) => promise.then(() => 200, statusOf)

test("another account's company list is a 404 for the page and for each of its forms", async () => {
	const owner = await accountWithCredits(100)
	const other = await accountWithCredits(100)
	const list = await db
		.insertInto('company_scraping_list')
		.values({ user_id: owner.accountId!, name: 'Mine', source_type: 'apollo', status: 2 })
		.returning('id')
		.executeTakeFirstOrThrow()
	expect(await outcome(page.loader(args(owner, list.id)))).toBe(200)
	expect(await outcome(page.loader(args(other, list.id)))).toBe(404)
	for (const intent of ['estimate', 'run', 'cancel', 'retry-failed'])
		expect(await outcome(page.action(args(other, list.id, { intent })))).toBe(404)
	// nothing was written for either account
	const runs = await db
		.selectFrom('enrichment_runs')
		.select('id')
		.where('company_list_id', '=', list.id)
		.execute()
	expect(runs).toHaveLength(0)
})
