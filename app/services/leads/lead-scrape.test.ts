import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeApify, type FakeApify } from '../../../tests/fakes/apify/server.ts'
import {
	accountWithCredits,
	settledLeadList,
	withProviderKey,
} from '../../../tests/support/jobs.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { createLeadScrape } from './create-lead-scrape.server.ts'
import { runLeadScrape } from './run-lead-scrape.server.ts'
import { cancelScrape } from './scrape-lists.server.ts'
import { sql } from 'kysely'

// End to end: the real worker and database against the local Apify fake.
let apify: FakeApify
let workers: Workers
beforeAll(async () => {
	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	process.env.APIFY_CAPACITY_RETRY_SECONDS = '1'
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await apify.close()
})

const search = (tag: string) => `https://app.apollo.io/#/people?personTitles[]=ceo&qKeywords=${tag}`

const leadCount = async (listId: string) =>
	Number(
		(
			await db
				.selectFrom('leads')
				.select((eb) => eb.fn.countAll().as('n'))
				.where('list_id', '=', listId)
				.executeTakeFirstOrThrow()
		).n,
	)

describe('lead scrape', () => {
	test('a search ends in success with its leads, paid in credits', async () => {
		apify.scenario('plain', { pollsBeforeFinish: 2 })
		const me = await accountWithCredits(500)
		const { listId } = await createLeadScrape(me, {
			name: 'CEOs',
			url: search('plain'),
			count: 120,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await getCreditBalance(me.accountId!)).toBe(380)
		const list = await settledLeadList(listId)
		expect(list).toMatchObject({ status: 2, found: 120, progress: 100, error: null })
		expect(await leadCount(listId)).toBe(120)
		expect(await getCreditBalance(me.accountId!)).toBe(380)
	})

	test('a run that stops early at 25 refunds the unused credits', async () => {
		apify.scenario('early', { stopAt25: true })
		const me = await accountWithCredits(100)
		const { listId } = await createLeadScrape(me, {
			name: 'Early',
			url: search('early'),
			count: 100,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await settledLeadList(listId)).toMatchObject({ status: 2, found: 25 })
		expect(await getCreditBalance(me.accountId!)).toBe(75)
	})

	test('a failed run fails the list with the reason and refunds everything', async () => {
		apify.scenario('broken', { outcome: 'FAILED', statusMessage: 'Apollo session expired' })
		const me = await accountWithCredits(100)
		const { listId } = await createLeadScrape(me, {
			name: 'Broken',
			url: search('broken'),
			count: 50,
			payWith: 'credits',
			workspaceId: null,
		})
		const list = await settledLeadList(listId)
		expect(list.status).toBe(3)
		expect(list.error).toBe(
			'The Apify run failed: Apollo session expired 50 unused credits were refunded. Retry the list to try again.',
		)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	})

	test('429s on dataset pages are waited out; messy items are mapped and deduped', async () => {
		apify.scenario('messy', { rateLimitPages: 2, messy: true })
		const me = await accountWithCredits(1000)
		const { listId } = await createLeadScrape(me, {
			name: 'Messy',
			url: search('messy'),
			count: 100,
			payWith: 'credits',
			workspaceId: null,
		})
		const list = await settledLeadList(listId)
		// of 100 items, 10 are empty (clean=1 leaves them out), 10 have no email and 10 repeat
		// an earlier email
		expect(list).toMatchObject({ status: 2, found: 70 })
		expect(await leadCount(listId)).toBe(70)
		expect(await getCreditBalance(me.accountId!)).toBe(930)
	})

	// issue 39 point 3: with clean=1 a page of 1,000 holds 900 items when 100 are empty, and
	// the scrape stopped there as if the dataset had ended
	test('a dataset with empty items is read to the end, page by page to its total', async () => {
		apify.scenario('gappy', { messy: true })
		const me = await accountWithCredits(3000)
		const { listId } = await createLeadScrape(me, {
			name: 'Gappy',
			url: search('gappy'),
			count: 2500,
			payWith: 'credits',
			workspaceId: null,
		})
		const list = await settledLeadList(listId)
		// 7 of every 10 items are leads (empty, emailless and repeated ones left out)
		expect(list).toMatchObject({ status: 2, found: 1750, progress: 100 })
		expect(await leadCount(listId)).toBe(1750)
		expect(await getCreditBalance(me.accountId!)).toBe(3000 - 1750)
	})

	// issue 39 point 2: simultaneous searches on one token hit Apify's memory limit for a
	// while; the search waits for room instead of failing and refunding
	test('a start refused for the memory limit (402) waits and starts once there is room', async () => {
		apify.scenario('crowded', { memoryLimitStarts: 2 })
		const me = await accountWithCredits(100)
		const { listId } = await createLeadScrape(me, {
			name: 'Crowded',
			url: search('crowded'),
			count: 40,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await settledLeadList(listId)).toMatchObject({ status: 2, found: 40, error: null })
		expect(await getCreditBalance(me.accountId!)).toBe(60)
	})

	// issue 39 point 2: the official client retries a 404 on a run just started (replica
	// lag); failing there refunded the search while the run went on, costing money
	test('a run not found just after its start is asked again, not given up', async () => {
		apify.scenario('lagging', { notFoundPolls: 3 })
		const me = await accountWithCredits(100)
		const { listId } = await createLeadScrape(me, {
			name: 'Lagging',
			url: search('lagging'),
			count: 30,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await settledLeadList(listId)).toMatchObject({ status: 2, found: 30, error: null })
		expect(await getCreditBalance(me.accountId!)).toBe(70)
	})

	// issue 40 point 2: a 200 that is not the documented JSON array ended the scrape "Done"
	// with the leads of the pages before it and refunded the rest
	test('a dataset page that is not JSON is asked again, and the search reads every lead', async () => {
		apify.scenario('garbled', { malformedPages: 1 })
		const me = await accountWithCredits(2000)
		const { listId } = await createLeadScrape(me, {
			name: 'Garbled',
			url: search('garbled'),
			count: 1500,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await settledLeadList(listId)).toMatchObject({ status: 2, found: 1500 })
		expect(await leadCount(listId)).toBe(1500)
		expect(await getCreditBalance(me.accountId!)).toBe(500)
	})

	test('dataset pages that stay malformed end the search failed, refunded, never Done', async () => {
		apify.scenario('mangled', { malformedPages: 1000 })
		const me = await accountWithCredits(2000)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Mangled',
			url: search('mangled'),
			count: 1500,
			payWith: 'credits',
			workspaceId: null,
		})
		// the last attempt (the queued job's earlier ones wait out their retry delay)
		await runLeadScrape(requestId, {
			jobId: 'last-attempt',
			retryCount: 4,
			signal: new AbortController().signal,
		})
		const list = await settledLeadList(listId)
		expect(list.status).toBe(3)
		expect(list.error).toContain('not what its API documents')
		expect(await leadCount(listId)).toBe(0)
		expect(await getCreditBalance(me.accountId!)).toBe(2000)
	})

	test("the account's own Apify key is used, and a bad one fails clearly without touching credits", async () => {
		apify.scenario('own', {})
		const me = await accountWithCredits(10)
		const withKey = await withProviderKey(me, 'apify', 'wrong-token')
		const { listId } = await createLeadScrape(withKey, {
			name: 'Own key',
			url: search('own'),
			count: 10,
			payWith: 'apifyKey',
			workspaceId: null,
		})
		const list = await settledLeadList(listId)
		expect(list.status).toBe(3)
		expect(list.error).toContain('Apify API token is not valid')
		expect(await getCreditBalance(me.accountId!)).toBe(10)
	})

	test('too few credits is a field error and writes nothing', async () => {
		const me = await accountWithCredits(5)
		const error = await createLeadScrape(me, {
			name: 'Big',
			url: search('plain'),
			count: 10,
			payWith: 'credits',
			workspaceId: null,
		}).catch((e) => e)
		expect(error).toBeInstanceOf(FormError)
		expect(error).toMatchObject({ field: 'count' })
		expect(error.message).toContain('Not enough credits: 10 needed, 5 available')
		const lists = await db
			.selectFrom('processing_list')
			.select('id')
			.where('user_id', '=', me.accountId!)
			.execute()
		expect(lists).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(5)
	})

	test.each([
		['https://example.com/#/people?personTitles[]=ceo', 'url'],
		['https://app.apollo.io/#/people?page=1', 'url'],
	])('%s is refused at the field', async (url, field) => {
		const me = await accountWithCredits(100)
		await expect(
			createLeadScrape(me, { name: 'x', url, count: 10, payWith: 'credits', workspaceId: null }),
		).rejects.toMatchObject({ field })
	})

	test('a worker that stops mid-job resumes from its checkpoint: no lead lost or duplicated', async () => {
		// Run the handler by hand (no queue) so the test decides when the worker "dies".
		apify.scenario('resume', { pageDelayMs: 150 })
		const me = await accountWithCredits(5000)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Resume',
			url: search('resume'),
			count: 3500,
			payWith: 'credits',
			workspaceId: null,
		})
		// the queued job may already be running in the worker: let it, but also run
		// one by hand that stops after its first page, then resume it
		const dying = new AbortController()
		const first = runLeadScrape(requestId, { jobId: 'manual', retryCount: 0, signal: dying.signal })
		await expect
			.poll(
				async () =>
					(
						await db
							.selectFrom('apollo_requests')
							.select('items_read')
							.where('id', '=', requestId)
							.executeTakeFirstOrThrow()
					).items_read,
				{ timeout: 20_000, interval: 50 },
			)
			.toBeGreaterThanOrEqual(1000)
		dying.abort()
		await first.catch(() => {})
		await runLeadScrape(requestId, {
			jobId: 'manual-2',
			retryCount: 1,
			signal: new AbortController().signal,
		})
		const list = await settledLeadList(listId)
		expect(list).toMatchObject({ status: 2, found: 3500 })
		expect(await leadCount(listId)).toBe(3500)
		expect(await getCreditBalance(me.accountId!)).toBe(1500)
	})

	test('a cancel mid-scrape stops at once: the leads kept are the leads charged, for good', async () => {
		// pages of 1,000 that take a while, so the cancel lands while the next page is on its way
		apify.scenario('slowcancel', { pageDelayMs: 1500 })
		const me = await accountWithCredits(5000)
		const { listId } = await createLeadScrape(me, {
			name: 'Cancelled midway',
			url: search('slowcancel'),
			count: 4000,
			payWith: 'credits',
			workspaceId: null,
		})
		expect(await getCreditBalance(me.accountId!)).toBe(1000)
		const found = () =>
			db
				.selectFrom('processing_list')
				.select(['found', 'status', 'error'])
				.where('id', '=', listId)
				.executeTakeFirstOrThrow()
		await expect.poll(async () => (await found()).found, { timeout: 30_000 }).toBe(1000)
		await cancelScrape(me, 'leads', listId)

		const agree = async () => {
			const list = await found()
			expect(list).toMatchObject({ status: 3, error: 'Cancelled' })
			expect(await leadCount(listId)).toBe(list.found)
			// 1,000 leads kept and paid for; the other 3,000 credits are back
			expect(await getCreditBalance(me.accountId!)).toBe(5000 - list.found)
			return list.found
		}
		expect(await agree()).toBe(1000)
		// ... and stay so after the job would have gone on: it has ended without writing more
		await expect
			.poll(
				async () => {
					const { rows } = await sql<{ state: string }>`
						select state from pgboss.job
						where name = 'lead-scrape' and data->>'requestId' = (
							select id::text from apollo_requests where list_id = ${listId})`.execute(db)
					return rows.map((r) => r.state)
				},
				{ timeout: 30_000 },
			)
			.toEqual(['completed'])
		expect(await agree()).toBe(1000)
		const ledger = await db
			.selectFrom('credits')
			.select(['delta', 'reason'])
			.where('user_id', '=', me.accountId!)
			.orderBy('id')
			.execute()
		expect(ledger.reduce((sum, e) => sum + e.delta, 0)).toBe(4000)
		// cancelling twice is refused, and changes nothing
		await expect(cancelScrape(me, 'leads', listId)).rejects.toThrow(FormError)
		expect(await agree()).toBe(1000)
	})
})
