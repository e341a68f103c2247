import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { startFakeApify, type FakeApify } from '../../tests/fakes/apify/server.ts'
import { insertLeadList } from '../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../tests/support/jobs.ts'
import { getCreditBalance } from '../services/billing/credits.server.ts'
import { createCompanyScrape } from '../services/companies/create-company-scrape.server.ts'
import { createEnrichment } from '../services/enrichments/enrichments.server.ts'
import { startRun } from '../services/enrichments/start-enrichment.server.ts'
import { createLeadScrape } from '../services/leads/create-lead-scrape.server.ts'
import { JOB_RETRY_LIMIT, runLeadScrape } from '../services/leads/run-lead-scrape.server.ts'
import { retryScrape } from '../services/leads/scrape-lists.server.ts'
import { resetSingleton } from '../utils/singleton.server.ts'
import { getBoss } from './boss.server.ts'
import { RATE_LIMIT_RESCHEDULES } from './define.server.ts'
import { settleEndedJobs } from './ended.server.ts'
import { jobDefinitions } from './registry.server.ts'

// Issue 40 points 3 and 5. No worker runs in this file: the tests play pg-boss's part (a job
// failed for good by its monitor, expired, deleted) or run a handler by hand, then sweep.
let apify: FakeApify
beforeAll(async () => {
	apify = await startFakeApify()
	Object.assign(process.env, {
		APIFY_BASE_URL: apify.url,
		APIFY_TOKEN: apify.token,
		APOLLO_API_KEY: 'platform-apollo-key',
		OPENAI_API_KEY: 'sk-platform',
		CREDITS_PER_ENRICHMENT: '1',
	})
	resetSingleton('config')
	// pg-boss's schema, as in any process that sweeps
	await getBoss()
})
afterAll(() => apify.close())

const search = (tag: string) => `https://app.apollo.io/#/people?personTitles[]=cto&qKeywords=${tag}`
// rows made a moment ago count: the tests play the minute the sweep waits for
const sweep = () => settleEndedJobs(jobDefinitions, { quietSeconds: 0 })

/** What pg-boss's monitor does to an active job whose retries are spent, or the queue's end of it. */
async function endJob(
	name: string,
	key: string,
	id: string,
	how: 'heartbeat' | 'expired' | 'deleted',
) {
	const match = sql`name = ${name} and data->>${key} = ${id}`
	if (how === 'deleted') {
		await sql`delete from pgboss.job where ${match}`.execute(db)
		return
	}
	const message = how === 'expired' ? 'job timed out' : 'job heartbeat timeout'
	const { numAffectedRows } = await sql`
		update pgboss.job set state = 'failed', completed_on = now(),
			output = jsonb_build_object('value', jsonb_build_object('message', ${message}::text))
		where ${match}`.execute(db)
	expect(numAffectedRows).toBe(1n)
}

const leadList = (listId: string) =>
	db
		.selectFrom('processing_list')
		.select(['status', 'error', 'found'])
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()

const refundsOf = async (accountId: string) =>
	(
		await db
			.selectFrom('credits')
			.select(['delta', 'reference'])
			.where('user_id', '=', accountId)
			.where('reason', '=', 'refund')
			.execute()
	).length

describe('a job that ends for good settles its work (issue 40 point 3)', () => {
	test('a search whose worker died on every try ends failed with a reason, refunded once', async () => {
		const me = await accountWithCredits(500)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Killed five times',
			url: search('killed'),
			count: 300,
			payWith: 'credits',
			workspaceId: null,
		})
		await db.updateTable('processing_list').set({ status: 1 }).where('id', '=', listId).execute()
		expect(await getCreditBalance(me.accountId!)).toBe(200)
		// still queued: the sweep leaves it alone
		expect(await sweep()).toBe(0)
		expect(await leadList(listId)).toMatchObject({ status: 1 })

		await endJob('lead-scrape', 'requestId', requestId, 'heartbeat')
		expect(await sweep()).toBe(1)
		const list = await leadList(listId)
		expect(list.status).toBe(3)
		expect(list.error).toBe(
			'The search stopped. The worker running it stopped answering too many times, so it was given up. 300 unused credits were refunded. Retry the list to try again.',
		)
		expect(await getCreditBalance(me.accountId!)).toBe(500)
		// once: a second sweep, and the handler's own end, change nothing
		expect(await sweep()).toBe(0)
		await runLeadScrape(requestId, {
			jobId: 'late',
			retryCount: 9,
			signal: new AbortController().signal,
		})
		expect(await getCreditBalance(me.accountId!)).toBe(500)
		expect(await refundsOf(me.accountId!)).toBe(1)
	})

	test('an expired job and a deleted one: their lists fail and are refunded too', async () => {
		const me = await accountWithCredits(1000)
		const expired = await createLeadScrape(me, {
			name: 'Expired',
			url: search('expired'),
			count: 100,
			payWith: 'credits',
			workspaceId: null,
		})
		const deleted = await createLeadScrape(me, {
			name: 'Deleted',
			url: search('deleted'),
			count: 200,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await getCreditBalance(me.accountId!)).toBe(700)
		await endJob('lead-scrape', 'requestId', expired.requestId, 'expired')
		await endJob('lead-scrape', 'requestId', deleted.requestId, 'deleted')
		expect(await sweep()).toBe(2)
		expect((await leadList(expired.listId)).error).toMatch(
			/^The search stopped\. It ran longer than its time limit and was stopped\./,
		)
		expect((await leadList(deleted.listId)).error).toMatch(
			/^The search stopped\. Its background job was removed before the work was done\./,
		)
		expect(await getCreditBalance(me.accountId!)).toBe(1000)
	})

	test('a retried list whose first job failed is not touched: its new job is live', async () => {
		const me = await accountWithCredits(100)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Retried',
			url: search('retried'),
			count: 50,
			payWith: 'credits',
			workspaceId: null,
		})
		await endJob('lead-scrape', 'requestId', requestId, 'heartbeat')
		await sweep()
		expect((await leadList(listId)).status).toBe(3)
		await retryScrape(me, 'leads', listId)
		expect(await sweep()).toBe(0)
		expect((await leadList(listId)).status).toBe(0)
		expect(await getCreditBalance(me.accountId!)).toBe(50)
	})

	test('domain lookups and an enrichment run whose jobs failed for good are settled', async () => {
		const me = await accountWithCredits(100)
		const { listId: companyListId } = await createCompanyScrape(me, {
			name: 'Domains',
			workspaceId: null,
			source: 'domains',
			domainsText: 'a.com b.com c.com',
			payWith: 'credits',
		})
		const leads = await insertLeadList(me.accountId!, 4)
		const enrichment = await createEnrichment(me, {
			name: 'Summary',
			prompt: 'Describe {{company_name}}',
			outputColumn: 'summary',
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: 0,
		})
		const { runId } = await startRun(me, {
			listId: leads,
			target: `enrichment:${enrichment.id}`,
			payWith: 'credits',
		})
		expect(await getCreditBalance(me.accountId!)).toBe(93)
		await endJob('company-scrape', 'listId', companyListId, 'heartbeat')
		await endJob('enrich', 'runId', runId, 'expired')
		expect(await sweep()).toBe(2)
		const companies = await db
			.selectFrom('company_scraping_list')
			.select(['status', 'error'])
			.where('id', '=', companyListId)
			.executeTakeFirstOrThrow()
		expect(companies.status).toBe(3)
		expect(companies.error).toMatch(/^The lookup stopped\. The worker running it stopped answering/)
		const run = await db
			.selectFrom('enrichment_runs')
			.select(['status', 'error'])
			.where('id', '=', runId)
			.executeTakeFirstOrThrow()
		expect(run).toEqual({
			status: 3,
			error:
				'The run stopped. It ran longer than its time limit and was stopped. Unused credits were refunded. Retry the failed rows to go on.',
		})
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	})
})

describe('the quiet minute and the other kinds', () => {
	test('an upload without its job is settled once it has been quiet for a minute', async () => {
		const me = await accountWithCredits(0)
		const listId = await insertLeadList(me.accountId!, 3)
		const upload = await db
			.insertInto('emailbison_upload')
			.values({
				list_id: listId,
				user_id: me.accountId!,
				eb_workspace_id: '1',
				campaign_id: '1',
				status: 1,
				mapping: JSON.stringify({ fields: {}, variables: [] }),
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		const status = async () =>
			db
				.selectFrom('emailbison_upload')
				.select(['status', 'error'])
				.where('id', '=', upload.id)
				.executeTakeFirstOrThrow()
		// written a moment ago: the scheduled sweep leaves it alone
		expect(await settleEndedJobs(jobDefinitions)).toBe(0)
		expect((await status()).status).toBe(1)
		await db
			.updateTable('emailbison_upload')
			.set({ updated_at: sql`now() - interval '61 seconds'` })
			.where('id', '=', upload.id)
			.execute()
		expect(await settleEndedJobs(jobDefinitions)).toBe(1)
		expect(await status()).toEqual({
			status: 3,
			error:
				'The upload stopped. Its background job was removed before the work was done. The leads sent so far are in the campaign; upload the list again to send the rest.',
		})
	})
})

describe("a failed scrape's kept leads are paid for (issue 40 point 5, decision 0063)", () => {
	test('the leads written before the last try failed are kept and charged; a retry charges only new ones', async () => {
		apify.scenario('keptfail', { pageDelayMs: 400 })
		const me = await accountWithCredits(5000)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Kept',
			url: search('keptfail'),
			count: 2500,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await getCreditBalance(me.accountId!)).toBe(2500)
		// the last try (no retry left) stops after its first page of 1,000
		const stopping = new AbortController()
		const last = runLeadScrape(requestId, {
			jobId: 'last',
			retryCount: JOB_RETRY_LIMIT,
			signal: stopping.signal,
		})
		await expect
			.poll(async () => (await leadList(listId)).found, { timeout: 20_000, interval: 50 })
			.toBeGreaterThanOrEqual(1000)
		stopping.abort()
		await last
		const failed = await leadList(listId)
		expect(failed.status).toBe(3)
		const kept = failed.found
		const leadsKept = await db
			.selectFrom('leads')
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.where('list_id', '=', listId)
			.executeTakeFirstOrThrow()
		expect(Number(leadsKept.n)).toBe(kept)
		// the kept leads are paid for and the list says so
		expect(await getCreditBalance(me.accountId!)).toBe(5000 - kept)
		expect(failed.error).toContain(
			`The ${kept.toLocaleString('en')} leads found before it stopped are kept and charged (${kept.toLocaleString('en')} credits). ${(2500 - kept).toLocaleString('en')} unused credits were refunded. Retry the list to find the rest.`,
		)

		// a retry finds all 2,500 again (the kept ones are skipped) and charges only the new ones
		await retryScrape(me, 'leads', listId)
		await runLeadScrape(requestId, {
			jobId: 'retry',
			retryCount: 0,
			signal: new AbortController().signal,
		})
		expect(await leadList(listId)).toMatchObject({ status: 2, found: 2500, error: null })
		expect(await getCreditBalance(me.accountId!)).toBe(2500)
	}, 60_000)
})

describe('a final failure says it is final (issue 40 point 8)', () => {
	test('Apify rate limiting the last try: the list says the search stopped, not "we will try again"', async () => {
		apify.scenario('finalstorm', { rateLimitPages: 1000 })
		const me = await accountWithCredits(100)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Final storm',
			url: search('finalstorm'),
			count: 20,
			payWith: 'credits',
			workspaceId: null,
		})
		// no retry left, and no more putting back for the rate limit
		await runLeadScrape(requestId, {
			jobId: 'last',
			retryCount: JOB_RETRY_LIMIT,
			rateLimited: RATE_LIMIT_RESCHEDULES,
			signal: new AbortController().signal,
		})
		expect(await leadList(listId)).toEqual({
			status: 3,
			found: 0,
			error:
				'Apify kept rate limiting the search, so it stopped after several tries. 20 unused credits were refunded. Retry the list to try again.',
		})
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	}, 30_000)
})
