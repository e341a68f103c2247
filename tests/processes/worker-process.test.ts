import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { grantCredits } from '../../app/services/billing/credits.server.ts'
import { createLeadScrape } from '../../app/services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeApify, type FakeApify } from '../fakes/apify/server.ts'
import { insertUser } from '../support/factories.ts'

// This process plays the web process with WORKERS=0: it only enqueues.
// `npm run worker` (node worker.ts) runs the jobs, and is killed mid-job.
let apify: FakeApify
const children = new Set<ChildProcess>()

beforeAll(async () => {
	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	resetSingleton('config')
})
afterAll(async () => {
	for (const child of children) child.kill('SIGKILL')
	await apify.close()
})

function startWorker() {
	const child = spawn(process.execPath, ['worker.ts'], {
		env: {
			...process.env,
			WORKERS: '2',
			JOB_HEARTBEAT_SECONDS: '10',
			JOB_MONITOR_SECONDS: '1',
			LOG_LEVEL: 'warn',
			NODE_ENV: 'test',
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	})
	children.add(child)
	child.once('exit', () => children.delete(child))
	let output = ''
	child.stdout!.on('data', (d) => (output += d))
	child.stderr!.on('data', (d) => (output += d))
	const ready = new Promise<void>((resolve, reject) => {
		child.stdout!.on('data', () => output.includes('workers are running') && resolve())
		child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${output}`)))
	})
	return { child, ready }
}

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
