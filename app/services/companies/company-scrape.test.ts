import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeApify, type FakeApify } from '../../../tests/fakes/apify/server.ts'
import { startFakeApollo, type FakeApollo } from '../../../tests/fakes/apollo/server.ts'
import {
	accountWithCredits,
	settledCompanyList,
	withProviderKey,
} from '../../../tests/support/jobs.ts'
import { ApolloError, windowResumesAt } from '../../integrations/apollo.server.ts'
import { rateLimitDelaySeconds } from '../../jobs/define.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { createCompanyScrape } from './create-company-scrape.server.ts'

let apollo: FakeApollo
let apify: FakeApify
let workers: Workers
beforeAll(async () => {
	apollo = await startFakeApollo()
	apify = await startFakeApify()
	Object.assign(process.env, {
		APOLLO_BASE_URL: apollo.url,
		APOLLO_API_KEY: apollo.apiKey,
		APIFY_BASE_URL: apify.url,
		APIFY_TOKEN: apify.token,
		// spent Apollo windows (minute, hour, day) are asked again this soon here
		APOLLO_WINDOW_WAIT_SECONDS: '1,4,4',
	})
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await apollo.close()
	await apify.close()
})

describe('company scrape', () => {
	const pasted = (me: Awaited<ReturnType<typeof accountWithCredits>>, name: string, n: number) =>
		createCompanyScrape(me, {
			name,
			workspaceId: null,
			source: 'domains',
			domainsText: Array.from({ length: n }, (_, i) => `${name}-${i}.com`).join('\n'),
			payWith: 'credits',
		})

	// issue 39 point 5: Apollo's 429s carry no Retry-After, on minute, hour and day windows; the
	// job waited inside itself (up to 3 times the window's wait: 45 minutes for an hour) and then
	// failed, refunding. Now the job leaves the worker, waits in the queue until the window is
	// asked again, the list says until when, and it resumes from its checkpoint.
	test('a spent hourly window (x-hourly-requests-left: 0) pauses the job in the queue until it ends', async () => {
		const me = await accountWithCredits(100)
		apollo.exhaustWindow('hour', 8_000)
		const { listId } = await pasted(me, 'windowed', 30)
		const job = async () => {
			const { rows } = await sql<{
				state: string
				start_after: Date
				retry_count: number
				window_pauses: number | null
			}>`select state, start_after, retry_count, (data->>'windowPauses')::int as window_pauses
				from pgboss.job where name = 'company-scrape' and data->>'listId' = ${listId}`.execute(db)
			return rows[0]!
		}
		const list = () =>
			db
				.selectFrom('company_scraping_list')
				.select(['status', 'error', 'found'])
				.where('id', '=', listId)
				.executeTakeFirstOrThrow()
		// waiting: the list says until when, and no worker holds the job meanwhile
		await expect
			.poll(async () => (await list()).error ?? '', { timeout: 20_000, interval: 100 })
			.toMatch(/hourly request limit for this key is used up: the work waits until \d\d:\d\d UTC/)
		expect((await list()).status).toBe(1)
		await expect
			.poll(async () => (await job()).state, { timeout: 5_000, interval: 50 })
			.toBe('created')
		const waiting = await job()
		expect(waiting.start_after.getTime()).toBeGreaterThan(Date.now())
		// the lookups in flight when it stopped end (the HTTP client may ask a 429 once more);
		// then nothing calls Apollo until the window is asked again
		const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
		await sleep(500)
		const callsWhileWaiting = apollo.calls.length
		await sleep(1500)
		expect(apollo.calls.length).toBe(callsWhileWaiting)
		// the window ends: the job resumes and finishes, no try spent, nothing refunded
		expect(await settledCompanyList(listId)).toMatchObject({ status: 2, found: 30, error: null })
		expect(await getCreditBalance(me.accountId!)).toBe(70)
		expect(await job()).toMatchObject({ state: 'completed', retry_count: 0 })
		expect((await job()).window_pauses).toBeGreaterThanOrEqual(1)
	}, 60_000)

	test('a day window waits past the ten minutes a plain rate limit is put back for', () => {
		const now = new Date('2026-11-27T21:30:00Z')
		const waits = { minute: 60, hour: 900, day: 86_400 }
		// fixed on the clock: the next UTC midnight (and a second) comes before a full day
		expect(windowResumesAt('day', waits, now).toISOString()).toBe('2026-11-28T00:00:01.000Z')
		// the hour's boundary is further than the configured wait: the wait it is
		expect(windowResumesAt('hour', waits, now).toISOString()).toBe('2026-11-27T21:45:00.000Z')
		expect(windowResumesAt('minute', waits, new Date('2026-11-27T21:30:42Z')).toISOString()).toBe(
			'2026-11-27T21:31:01.000Z',
		)
		const dayLimit = new ApolloError(
			'rate-limited',
			'day',
			9000,
			'day',
			new Date(Date.now() + 9000_000),
		)
		expect(rateLimitDelaySeconds(dayLimit, 0)).toBeGreaterThan(8990)
	})

	// issue 39 point 5: 403 API_INACCESSIBLE is the key's plan, not a key that is "not valid"
	test("a 403 API_INACCESSIBLE says it is the key's plan", async () => {
		apollo.setInaccessible(true)
		try {
			const me = await accountWithCredits(100)
			const { listId } = await pasted(me, 'inaccessible', 3)
			const list = await settledCompanyList(listId)
			expect(list.status).toBe(3)
			expect(list.error).toContain("the key's plan")
			expect(list.error).not.toContain('not valid')
			expect(await getCreditBalance(me.accountId!)).toBe(100)
		} finally {
			apollo.setInaccessible(false)
		}
	})

	// issue 40 point 2: a 200 that is not JSON dropped the company as "unknown"
	test('an answer that is not JSON is asked again: no company dropped', async () => {
		apollo.malformedNext(3)
		const me = await accountWithCredits(100)
		const { listId } = await pasted(me, 'garbled', 10)
		expect(await settledCompanyList(listId)).toMatchObject({ status: 2, found: 10 })
		expect(await getCreditBalance(me.accountId!)).toBe(90)
	})

	test('pasted domains are enriched through Apollo; unknown ones are not charged', async () => {
		apollo.rateLimitNext(3)
		const me = await accountWithCredits(100)
		const domains = [
			...Array.from({ length: 28 }, (_, i) => `acme-${i}.com`),
			'unknown-one.com',
			'https://www.unknown-two.com/x',
		]
		const { listId } = await createCompanyScrape(me, {
			name: 'Targets',
			workspaceId: null,
			source: 'domains',
			domainsText: domains.join('\n'),
			payWith: 'credits',
		})
		const list = await settledCompanyList(listId)
		expect(list).toMatchObject({ status: 2, requested: 30, found: 28, progress: 100 })
		const companies = await db
			.selectFrom('companies')
			.selectAll()
			.where('list_id', '=', listId)
			.orderBy('domain')
			.execute()
		expect(companies).toHaveLength(28)
		expect(companies[0]).toMatchObject({
			domain: 'acme-0.com',
			name: 'Acme 0',
			location: 'Austin, Texas, United States',
		})
		expect(await getCreditBalance(me.accountId!)).toBe(72)
	})

	test('an invalid domain is reported with its line and nothing is written', async () => {
		const me = await accountWithCredits(100)
		const error = await createCompanyScrape(me, {
			name: 'Bad',
			workspaceId: null,
			source: 'domains',
			domainsText: 'acme.com\nnot_a domain.com',
			payWith: 'credits',
		}).catch((e) => e)
		expect(error).toBeInstanceOf(FormError)
		expect(error).toMatchObject({ field: 'domains' })
		expect(error.message).toContain('line 2: “not_a”')
		expect(
			await db
				.selectFrom('company_scraping_list')
				.select('id')
				.where('user_id', '=', me.accountId!)
				.execute(),
		).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	})

	test('an invalid domain in a CSV is reported with its line in the file (the header is line 1)', async () => {
		const me = await accountWithCredits(100)
		const problem = async (csv: string) => {
			const error: unknown = await createCompanyScrape(me, {
				name: 'Bad CSV',
				workspaceId: null,
				source: 'domains',
				csv,
				payWith: 'credits',
			}).catch((e: unknown) => e)
			return error instanceof FormError ? error.message : 'no form error'
		}
		// header, acme, a blank line, then the bad one on line 4
		expect(await problem('Company,Website\nAcme,acme.io\n\nBeta,not_a\n')).toContain(
			'line 4: “not_a”',
		)
		// a quoted cell over two lines: the next record starts on line 4
		expect(await problem('Name,Domain\n"Acme\nInc",acme.io\nBeta,bad_one\n')).toContain(
			'line 4: “bad_one”',
		)
		// no header: the first line is line 1
		expect(await problem('acme.io\nbad_two\n')).toContain('line 2: “bad_two”')
		expect(
			await db
				.selectFrom('company_scraping_list')
				.select('id')
				.where('user_id', '=', me.accountId!)
				.execute(),
		).toHaveLength(0)
	})

	test('domains from a CSV column named website', async () => {
		const me = await accountWithCredits(10)
		const { listId } = await createCompanyScrape(me, {
			name: 'From CSV',
			workspaceId: null,
			source: 'domains',
			csv: '\uFEFFCompany,Website\nAcme,https://acme.io\n"Beta, Inc",beta.dev\n',
			payWith: 'credits',
		})
		expect(await settledCompanyList(listId)).toMatchObject({ status: 2, found: 2 })
	})

	test("a wrong Apollo key of the account's own fails the list clearly", async () => {
		const me = await accountWithCredits(0)
		const withKey = await withProviderKey(me, 'apollo', 'nope')
		const { listId } = await createCompanyScrape(withKey, {
			name: 'Own key',
			workspaceId: null,
			source: 'domains',
			domainsText: 'acme.com',
			payWith: 'apolloKey',
		})
		const list = await settledCompanyList(listId)
		expect(list.status).toBe(3)
		expect(list.error).toBe(
			'The Apollo API key is not valid. Check it on the API keys page. Retry the list to try again.',
		)
	})

	test('an Apollo company search runs through Apify', async () => {
		const me = await accountWithCredits(50)
		const { listId } = await createCompanyScrape(me, {
			name: 'SaaS in France',
			workspaceId: null,
			source: 'apollo',
			url: 'https://app.apollo.io/#/companies?organizationLocations[]=France&qOrganizationKeywordTags[]=saas',
			count: 40,
			payWith: 'credits',
		})
		expect(await settledCompanyList(listId)).toMatchObject({ status: 2, found: 40 })
		expect(await getCreditBalance(me.accountId!)).toBe(10)
	})
})

describe('retrying a company list', () => {
	test('a failed domain list goes on from where it stopped, charging only what it finds', async () => {
		const { retryScrape } = await import('../leads/scrape-lists.server.ts')
		const me = await accountWithCredits(100)
		const { listId } = await createCompanyScrape(me, {
			name: 'Retry me',
			workspaceId: null,
			source: 'domains',
			domainsText: Array.from({ length: 10 }, (_, i) => `retry-${i}.com`).join(' '),
			payWith: 'credits',
		})
		await settledCompanyList(listId)
		// as if the first attempt had failed after 4 domains
		await db
			.updateTable('company_scraping_list')
			.set({ status: 3, error: 'Apollo is having trouble.', items_read: 4 })
			.where('id', '=', listId)
			.execute()
		await db
			.deleteFrom('companies')
			.where('list_id', '=', listId)
			.where('domain', 'not in', ['retry-0.com', 'retry-1.com', 'retry-2.com', 'retry-3.com'])
			.execute()
		await db
			.updateTable('company_scraping_list')
			.set({ found: 4 })
			.where('id', '=', listId)
			.execute()
		await retryScrape(me, 'companies', listId)
		expect(await settledCompanyList(listId)).toMatchObject({ status: 2, found: 10, error: null })
		// 10 credits for the first attempt, 6 more for the retry's 6 new companies
		expect(await getCreditBalance(me.accountId!)).toBe(84)
	})
})
