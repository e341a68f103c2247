import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { createLeadScrape } from '../../app/services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeApify, type FakeApify } from '../fakes/apify/server.ts'
import { accountWithCredits, settledLeadList } from '../support/jobs.ts'
import { workerProcesses, type WorkerProcesses } from '../support/worker-process.ts'

// The worker is killed (SIGKILL) after Apify started the search's run but before the worker
// heard of it; the next worker must find that run and read it, not start a second one.
let apify: FakeApify
let workers: WorkerProcesses

beforeAll(async () => {
	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	resetSingleton('config')
	workers = workerProcesses({ APIFY_BASE_URL: apify.url, APIFY_TOKEN: apify.token })
})
afterAll(async () => {
	workers.killAll()
	await apify.close()
})

test('a worker killed while Apify starts the run: the next one adopts it, one run', async () => {
	apify.scenario('startonce', { pollsBeforeFinish: 1 })
	const me = await accountWithCredits(500)
	const first = workers.start()
	await first.ready
	const killed = new Promise<void>((resolve) =>
		apify.afterNextStart(async () => {
			const exited = new Promise((done) => first.child.once('exit', done))
			first.child.kill('SIGKILL')
			await exited
			resolve()
		}),
	)
	const { listId, requestId } = await createLeadScrape(me, {
		name: 'Start once',
		url: 'https://app.apollo.io/#/people?personTitles[]=coo&qKeywords=startonce',
		count: 60,
		payWith: 'credits',
		workspaceId: null,
	})
	await killed
	const atKill = await db
		.selectFrom('apollo_requests')
		.select(['run_id', 'start_requested_at'])
		.where('id', '=', requestId)
		.executeTakeFirstOrThrow()
	// Apify has the run; we never stored its id
	expect(apify.runs.size).toBe(1)
	expect(atKill.run_id).toBeNull()
	expect(atKill.start_requested_at).not.toBeNull()

	const second = workers.start()
	await second.ready
	// the dead worker's job is retried once its heartbeat is missed
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
			{ timeout: 70_000, interval: 250 },
		)
		.toBe(2)
	const list = await settledLeadList(listId)
	expect(list).toMatchObject({ status: 2, found: 60 })
	expect(apify.runs.size).toBe(1)
	const done = await db
		.selectFrom('apollo_requests')
		.select('run_id')
		.where('id', '=', requestId)
		.executeTakeFirstOrThrow()
	expect(done.run_id).toBe([...apify.runs.keys()][0])
	second.child.kill('SIGTERM')
}, 100_000)
