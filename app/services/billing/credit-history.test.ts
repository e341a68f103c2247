import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { newOwner } from '../../../tests/support/billing.ts'
import { insertCompanyList, insertLeadList } from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { adjustCredits } from '../admin/users.server.ts'
import { createCompanyScrape } from '../companies/create-company-scrape.server.ts'
import { companyScrapeReference } from '../companies/run-company-scrape.server.ts'
import { createEnrichment } from '../enrichments/enrichments.server.ts'
import { enrichReference } from '../enrichments/run-enrichment.server.ts'
import { startRun } from '../enrichments/start-enrichment.server.ts'
import { createLeadScrape } from '../leads/create-lead-scrape.server.ts'
import { leadScrapeReference } from '../leads/run-lead-scrape.server.ts'
import { retryScrape } from '../leads/scrape-lists.server.ts'
import { buyCreditPack } from './buy-credits.server.ts'
import { completeTestCheckout } from './complete-checkout.server.ts'
import { getCreditHistory, listCostBreakdown, runCosts } from './credit-history.server.ts'
import { commitCredits, grantCredits, releaseCredits, reserveCredits } from './credits.server.ts'
import { getPricePlan } from './plans.server.ts'
import { grantPlanCredits } from './subscriptions.server.ts'

// Issue 34 point 5: every ledger line says what it was for (list, run, order, plan, an admin's
// note), the history names and links it, and a list's or a run's cost is the net of its lines.
// No job runs here: the holds are written when the work is asked for, and settled by the
// ledger's own functions, as the jobs settle them.

beforeAll(() => {
	// platform keys, so each kind of work can be paid with credits (no call goes out)
	Object.assign(process.env, {
		APIFY_TOKEN: 'apify-test-token',
		APOLLO_API_KEY: 'apollo-test-key',
		OPENAI_API_KEY: 'sk-test-openai',
		OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
		CREDITS_PER_ENRICHMENT: '1',
	})
	resetSingleton('config')
})

const linesOf = (accountId: string) =>
	db
		.selectFrom('credits')
		.select([
			'reason',
			'delta',
			'list_id',
			'company_list_id',
			'enrichment_run_id',
			'checkout_session_id',
			'subscription_id',
			'note',
		])
		.where('user_id', '=', accountId)
		.where('reason', '!=', 'admin')
		.orderBy('created_at')
		.execute()

const none = {
	list_id: null,
	company_list_id: null,
	enrichment_run_id: null,
	checkout_session_id: null,
	subscription_id: null,
	note: null,
}

describe('what each ledger line is for', () => {
	test('a lead search holds its credits for its list, its refund and its retry say the same', async () => {
		const me = await accountWithCredits(500)
		const { listId } = await createLeadScrape(me, {
			name: 'CEOs',
			url: 'https://app.apollo.io/#/people?personTitles[]=ceo',
			count: 120,
			payWith: 'credits',
			workspaceId: null,
		})
		const request = await db
			.selectFrom('apollo_requests')
			.select('id')
			.where('list_id', '=', listId)
			.executeTakeFirstOrThrow()
		await commitCredits(db, {
			accountId: me.accountId!,
			reference: leadScrapeReference(request.id, 1),
			used: 100,
		})
		await db.updateTable('processing_list').set({ status: 3 }).where('id', '=', listId).execute()
		await retryScrape(me, 'leads', listId)
		expect(await linesOf(me.accountId!)).toEqual([
			{ ...none, reason: 'reservation', delta: -120, list_id: listId },
			{ ...none, reason: 'refund', delta: 20, list_id: listId },
			{ ...none, reason: 'reservation', delta: -120, list_id: listId },
		])
	})

	test('a company search by domains, and its retry, are for the company list', async () => {
		const me = await accountWithCredits(100)
		const { listId } = await createCompanyScrape(me, {
			name: 'Domains',
			workspaceId: null,
			source: 'domains',
			domainsText: 'a.com b.com c.com d.com',
			payWith: 'credits',
		})
		await releaseCredits(db, {
			accountId: me.accountId!,
			reference: companyScrapeReference(listId, 1),
		})
		await db
			.updateTable('company_scraping_list')
			.set({ status: 3, error: 'Apollo is having trouble.', items_read: 1 })
			.where('id', '=', listId)
			.execute()
		await retryScrape(me, 'companies', listId)
		expect(await linesOf(me.accountId!)).toEqual([
			{ ...none, reason: 'reservation', delta: -4, company_list_id: listId },
			{ ...none, reason: 'refund', delta: 4, company_list_id: listId },
			{ ...none, reason: 'reservation', delta: -3, company_list_id: listId },
		])
	})

	test('an Apollo company search (an apollo request) is for its company list', async () => {
		const me = await accountWithCredits(100)
		const { listId } = await createCompanyScrape(me, {
			name: 'Apollo companies',
			workspaceId: null,
			source: 'apollo',
			url: 'https://app.apollo.io/#/companies?organizationIndustryTagIds[]=x',
			count: 30,
			payWith: 'credits',
		})
		expect(await linesOf(me.accountId!)).toEqual([
			{ ...none, reason: 'reservation', delta: -30, company_list_id: listId },
		])
	})

	test('an enrichment run is for the run and its list (a lead or a company list)', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 4)
		const enrichment = await createEnrichment(me, {
			name: 'Summary',
			prompt: 'Describe {{company_name}}',
			outputColumn: 'summary',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: 0,
		})
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${enrichment.id}`,
			payWith: 'credits',
		})
		await commitCredits(db, {
			accountId: me.accountId!,
			reference: enrichReference(runId, 1),
			used: 3,
		})
		const companies = await insertCompanyList(me.accountId!, 2)
		const about = await createEnrichment(me, {
			name: 'About',
			prompt: 'Describe {{domain}}',
			outputColumn: 'about',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: 0,
		})
		const { runId: companyRun } = await startRun(me, {
			listId: companies,
			source: 'companies',
			target: `enrichment:${about.id}`,
			payWith: 'credits',
		})
		expect(await linesOf(me.accountId!)).toEqual([
			{ ...none, reason: 'reservation', delta: -4, list_id: listId, enrichment_run_id: runId },
			{ ...none, reason: 'refund', delta: 1, list_id: listId, enrichment_run_id: runId },
			{
				...none,
				reason: 'reservation',
				delta: -2,
				company_list_id: companies,
				enrichment_run_id: companyRun,
			},
		])
	})

	test('a pack bought is for its checkout; plan credits for the subscription; an admin grant keeps its note', async () => {
		const { account } = await newOwner()
		const accountId = account.accountId!
		const checkout = await buyCreditPack(account, 1000)
		const checkoutId = checkout.url.split('/').pop()!
		await completeTestCheckout(account, checkoutId)
		const sub = await db
			.insertInto('subscriptions')
			.values({
				user_id: accountId,
				active_plan: 1,
				status: 'active',
				billing_date: new Date(),
				expire_date: new Date(Date.now() + 30 * 86_400_000),
			})
			.returning(['id', 'user_id'])
			.executeTakeFirstOrThrow()
		await grantPlanCredits(db, sub, (await getPricePlan(1, db))!, new Date('2026-11-01Z'))
		expect(await linesOf(accountId)).toEqual([
			{ ...none, reason: 'purchase', delta: 1000, checkout_session_id: checkoutId },
			expect.objectContaining({ reason: 'plan', subscription_id: sub.id }),
		])

		const admin = await insertUser(db)
		await db.insertInto('roles').values({ user_id: admin.id, role: 'admin' }).execute()
		const staff = await loadAccountContext(db, admin)
		await adjustCredits(staff, accountId, {
			direction: 'grant',
			amount: 50,
			note: 'Sorry for the outage on Monday',
		})
		const history = await getCreditHistory(accountId, new URLSearchParams())
		expect(history.lines[0]).toMatchObject({
			delta: 50,
			reason: 'Granted by an admin',
			note: 'Sorry for the outage on Monday',
		})
		expect(history.lines.map((l) => l.subject?.label ?? null)).toEqual([
			null,
			'Your plan’s monthly credits',
			'Credit pack bought for $19.00',
		])
	})
})

describe('the credit history', () => {
	test('names each line’s list or run and links to it, one page at a time, newest first', async () => {
		const me = await accountWithCredits(1000)
		const accountId = me.accountId!
		const listId = await insertLeadList(accountId, 3)
		await db
			.updateTable('processing_list')
			.set({ name: 'Founders' })
			.where('id', '=', listId)
			.execute()
		const enrichment = await createEnrichment(me, {
			name: 'Opener',
			prompt: 'Write an opener for {{first_name}}',
			outputColumn: 'opener',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: 0,
		})
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${enrichment.id}`,
			payWith: 'credits',
		})
		const first = await getCreditHistory(accountId, new URLSearchParams())
		expect(first.lines[0]!.subject).toEqual({
			label: 'Enrichment “Opener” on Founders',
			href: `/lists/${listId}/enrich?run=${runId}`,
		})
		expect(first.lines[0]!.at).toMatch(/T\d{2}:\d{2}:\d{2}/)

		// 30 more lines: pages of 25, by keyset, each line once
		for (let i = 0; i < 30; i++)
			await reserveCredits(db, {
				accountId,
				amount: 1,
				reference: `hold-${i}`,
				subject: { listId },
			})
		const seen: string[] = []
		let page = await getCreditHistory(accountId, new URLSearchParams())
		expect(page.newer).toBeNull()
		for (;;) {
			seen.push(...page.lines.map((l) => l.id))
			if (!page.older) break
			page = await getCreditHistory(accountId, new URLSearchParams(page.older))
		}
		expect(seen).toHaveLength(32) // the seed grant, the run's hold and the 30
		expect(new Set(seen).size).toBe(32)
		expect(page.page).toBe(2)
		expect(page.firstIndex).toBe(26)
		// and back: the newer page of the last is the first
		const back = await getCreditHistory(accountId, new URLSearchParams(page.newer!))
		expect(back.lines.map((l) => l.id)).toEqual(seen.slice(0, 25))
	})

	test('a deleted list is said so, unlinked; another account’s cursor reads the first page', async () => {
		const me = await accountWithCredits(100)
		const other = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 2)
		await reserveCredits(db, {
			accountId: me.accountId!,
			amount: 5,
			reference: 'x',
			subject: { listId },
		})
		await db.deleteFrom('processing_list').where('id', '=', listId).execute()
		const otherLine = (await getCreditHistory(other.accountId!, new URLSearchParams())).lines[0]!
		const page = await getCreditHistory(
			me.accountId!,
			new URLSearchParams({ before: otherLine.id, page: '2' }),
		)
		expect(page.lines[0]!.subject).toEqual({
			label: 'Lead search (list since deleted)',
			href: null,
		})
		expect(page.lines).toHaveLength(2)
	})
})

describe('what a list and a run cost', () => {
	test('the net of their lines, refunds netted, another account’s lines never counted', async () => {
		const me = await accountWithCredits(1000)
		const other = await accountWithCredits(1000)
		const accountId = me.accountId!
		const listId = await insertLeadList(accountId, 2)
		const emptyList = await insertLeadList(accountId, 2)
		const runA = crypto.randomUUID()
		const runB = crypto.randomUUID()
		// the search: 100 held, 40 back; a retry: 10 held
		await reserveCredits(db, { accountId, amount: 100, reference: 's1', subject: { listId } })
		await commitCredits(db, { accountId, reference: 's1', used: 60 })
		await reserveCredits(db, { accountId, amount: 10, reference: 's2', subject: { listId } })
		// two runs: 20 held, 5 back; 7 held, all back
		const run = (id: string) => ({ listId, enrichmentRunId: id })
		await reserveCredits(db, { accountId, amount: 20, reference: 'r1', subject: run(runA) })
		await commitCredits(db, { accountId, reference: 'r1', used: 15 })
		await reserveCredits(db, { accountId, amount: 7, reference: 'r2', subject: run(runB) })
		await releaseCredits(db, { accountId, reference: 'r2' })
		// another account's lines naming the same list and run (they cannot: never counted)
		await reserveCredits(db, {
			accountId: other.accountId!,
			amount: 500,
			reference: 'theirs',
			subject: run(runA),
		})
		await grantCredits(db, {
			accountId: other.accountId!,
			amount: 3,
			reason: 'admin',
			subject: { listId },
		})

		expect(await runCosts(accountId, [runA, runB])).toEqual(
			new Map([
				[runA, 15],
				[runB, 0],
			]),
		)
		const breakdown = await listCostBreakdown(accountId, 'leads', listId)
		expect(breakdown.total).toBe(60 + 10 + 15)
		expect(await listCostBreakdown(accountId, 'leads', emptyList)).toEqual({
			total: 0,
			search: 0,
			verification: 0,
			runs: [],
		})
		expect(breakdown.search).toBe(70)
		expect(breakdown.runs.map((r) => [r.id, r.credits])).toEqual([
			[runA, 15],
			[runB, 0],
		])
		expect(await listCostBreakdown(other.accountId!, 'leads', listId)).toMatchObject({
			total: 500 - 3,
		})
	})

	test('a list’s cost is one statement whatever its number of runs', async () => {
		const me = await accountWithCredits(1000)
		const accountId = me.accountId!
		const listId = await insertLeadList(accountId, 1)
		for (let i = 0; i < 12; i++)
			await reserveCredits(db, {
				accountId,
				amount: 1,
				reference: `run-${i}`,
				subject: { listId, enrichmentRunId: crypto.randomUUID() },
			})
		const statements: string[] = []
		const counted = db.withPlugin({
			transformQuery: (args) => {
				statements.push(args.node.kind)
				return args.node
			},
			transformResult: async (args) => args.result,
		})
		const breakdown = await listCostBreakdown(accountId, 'leads', listId, counted)
		expect(breakdown.runs).toHaveLength(12)
		expect(statements).toHaveLength(1)
	})
})
