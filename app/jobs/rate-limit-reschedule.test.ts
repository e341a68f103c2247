import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { startFakeApify, type FakeApify } from '../../tests/fakes/apify/server.ts'
import { accountWithCredits } from '../../tests/support/jobs.ts'
import { getCreditBalance } from '../services/billing/credits.server.ts'
import { createLeadScrape } from '../services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../utils/singleton.server.ts'
import { startWorkers, type Workers } from './worker.server.ts'

// Issue 40 point 3: a storm of 429s is no failure. 30 in a row outlast a try's own waiting
// (4 calls, each retried once by the HTTP client); the job waits in the queue and spends no
// attempt, where it used to spend 3 of its 4 retries (and minutes of pg-boss's backoff).
let apify: FakeApify
let workers: Workers
beforeAll(async () => {
	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await apify.close()
})

test('a rate-limit storm puts the scrape back in the queue without spending a retry', async () => {
	apify.scenario('storm', { rateLimitPages: 30 })
	const me = await accountWithCredits(500)
	const { listId, requestId } = await createLeadScrape(me, {
		name: 'Storm',
		url: 'https://app.apollo.io/#/people?personTitles[]=cfo&qKeywords=storm',
		count: 200,
		payWith: 'credits',
		workspaceId: null,
	})
	await expect
		.poll(
			async () =>
				(
					await db
						.selectFrom('processing_list')
						.select('status')
						.where('id', '=', listId)
						.executeTakeFirstOrThrow()
				).status,
			{ timeout: 60_000, interval: 250 },
		)
		.toBeGreaterThanOrEqual(2)
	const list = await db
		.selectFrom('processing_list')
		.select(['status', 'found', 'error'])
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
	expect(list).toEqual({ status: 2, found: 200, error: null })
	expect(await getCreditBalance(me.accountId!)).toBe(300)
	const { rows } = await sql<{ state: string; retry_count: number; rate_limited: number }>`
		select state, retry_count, (data->>'rateLimited')::int as rate_limited
		from pgboss.job where name = 'lead-scrape' and data->>'requestId' = ${requestId}`.execute(db)
	expect(rows).toHaveLength(1)
	// put back for the rate limit, never counted as a failed try
	expect(rows[0]!.state).toBe('completed')
	expect(rows[0]!.retry_count).toBe(0)
	expect(rows[0]!.rate_limited).toBeGreaterThanOrEqual(3)
}, 90_000)
