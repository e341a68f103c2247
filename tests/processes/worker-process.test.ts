import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { grantCredits } from '../../app/services/billing/credits.server.ts'
import { createLeadScrape } from '../../app/services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeApify, type FakeApify } from '../fakes/apify/server.ts'
import { insertUser } from '../support/factories.ts'
import { workerProcesses } from '../support/worker-process.ts'

// This process plays the web process with WORKERS=0: it only enqueues.
// `npm run worker` (node worker.ts) runs the jobs, and is killed mid-job.
let apify: FakeApify

beforeAll(async () => {
	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	resetSingleton('config')
})
afterAll(async () => {
	workers.killAll()
	await apify.close()
})

const workers = workerProcesses()
const startWorker = workers.start

async function account() {
	const user = await insertUser(db)
	await grantCredits(db, {
		accountId: user.id,
		amount: 10_000,
		reason: 'admin',
		reference: `seed-${user.id}`,
	})
	return loadAccountContext(db, user)
}

const listOf = (id: string) =>
	db.selectFrom('processing_list').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

test('a job submitted here completes in the worker process', async () => {
	const worker = startWorker()
	await worker.ready
	apify.scenario('two-processes', {})
	const me = await account()
	const { listId } = await createLeadScrape(me, {
		name: 'Two processes',
		url: 'https://app.apollo.io/#/people?qKeywords=two-processes',
		count: 50,
		payWith: 'credits',
		workspaceId: null,
	})
	await expect
		.poll(async () => (await listOf(listId)).status, { timeout: 20_000, interval: 200 })
		.toBe(2)
	expect((await listOf(listId)).found).toBe(50)
	worker.child.kill('SIGTERM')
})

test('a worker killed mid-job: the next one resumes, no lead lost or duplicated', async () => {
	const first = startWorker()
	await first.ready
	apify.scenario('killed', { pageDelayMs: 700 })
	const me = await account()
	const { listId, requestId } = await createLeadScrape(me, {
		name: 'Killed',
		url: 'https://app.apollo.io/#/people?qKeywords=killed',
		count: 3500,
		payWith: 'credits',
		workspaceId: null,
	})
	const itemsRead = async () =>
		(
			await db
				.selectFrom('apollo_requests')
				.select('items_read')
				.where('id', '=', requestId)
				.executeTakeFirstOrThrow()
		).items_read
	await expect.poll(itemsRead, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(1000)
	first.child.kill('SIGKILL')
	await new Promise((resolve) => first.child.once('exit', resolve))
	expect((await listOf(listId)).status).toBe(1)

	const second = startWorker()
	await second.ready
	await expect
		.poll(async () => (await listOf(listId)).status, { timeout: 60_000, interval: 250 })
		.toBe(2)
	const leads = await db
		.selectFrom('leads')
		.select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('email').distinct().as('unique')])
		.where('list_id', '=', listId)
		.executeTakeFirstOrThrow()
	expect(Number(leads.n)).toBe(3500)
	expect(Number(leads.unique)).toBe(3500)
	expect((await listOf(listId)).found).toBe(3500)
	second.child.kill('SIGTERM')
}, 90_000)
