// Issue 15, point 3: SIGTERM is graceful. Requests in flight finish, running jobs go back to
// the queue at once (another worker resumes them), the process exits 0.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { grantCredits } from '../../app/services/billing/credits.server.ts'
import { createLeadScrape } from '../../app/services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeApify, type FakeApify } from '../fakes/apify/server.ts'
import { insertUser } from '../support/factories.ts'
import { startProcess, startServer } from './support/lifecycle.ts'

let apify: FakeApify
beforeAll(async () => {
	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	// this process enqueues: its queue settings must match the workers'
	process.env.JOB_HEARTBEAT_SECONDS = '120'
	resetSingleton('config')
})
afterAll(() => apify.close())

test('SIGTERM: a slow upload in flight completes with 200, new connections are refused, exit 0', async () => {
	const app = await startServer({ DATABASE_URL: process.env.DATABASE_URL! })
	const { hostname, port } = new URL(app.url)
	const email = `slow-${randomUUID().slice(0, 8)}@example.com`
	const body = JSON.stringify({ email, password: 'a-long-enough-password-1' })
	const request = http.request({
		host: hostname,
		port,
		method: 'POST',
		path: '/auth/v1/signup',
		headers: {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(body),
			// the server answers 100 Continue once it holds the request: then it is in flight
			expect: '100-continue',
		},
	})
	const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
		request.on('response', (res) => {
			let text = ''
			res.on('data', (chunk) => (text += chunk))
			res.on('end', () => resolve({ status: res.statusCode!, text }))
		})
		request.on('error', reject)
	})
	await new Promise((resolve) => request.once('continue', resolve))
	request.write(body.slice(0, 12))

	app.child.kill('SIGTERM')
	await app.waitFor(/shutting down/)
	// draining: no new connections, while the upload is still arriving
	await expect(fetch(`${app.url}/healthz`)).rejects.toThrow()
	expect(app.child.exitCode).toBeNull()
	request.end(body.slice(12))

	const { status, text } = await response
	expect(status).toBe(200)
	expect(JSON.parse(text)).toMatchObject({ user: { email } })
	expect(await app.exited).toBe(0)
	const user = await db
		.selectFrom('auth.users')
		.select('email')
		.where('email', '=', email)
		.executeTakeFirst()
	expect(user?.email).toBe(email)
}, 90_000)

test('SIGTERM of a worker mid-job: another worker takes the job within seconds (not after the heartbeat) and finishes it exactly', async () => {
	// heartbeats are 2 minutes here: a job retried after a missed heartbeat would take that long
	const workerEnv = {
		DATABASE_URL: process.env.DATABASE_URL!,
		WORKERS: '2',
		JOB_HEARTBEAT_SECONDS: '120',
		JOB_MONITOR_SECONDS: '1',
	}
	const first = startProcess('worker.ts', workerEnv)
	const second = startProcess('worker.ts', workerEnv)
	await Promise.all([first, second].map((w) => w.waitFor(/workers are running/)))

	// slow pages while the job changes hands; full speed once it has
	const pages = { pageDelayMs: 1000 }
	apify.scenario('handed-back', pages)
	const user = await insertUser(db)
	await grantCredits(db, {
		accountId: user.id,
		amount: 10_000,
		reason: 'admin',
		reference: user.id,
	})
	const me = await loadAccountContext(db, user)
	const { listId, requestId } = await createLeadScrape(me, {
		name: 'Handed back',
		url: 'https://app.apollo.io/#/people?qKeywords=handed-back',
		count: 10_000,
		payWith: 'credits',
		workspaceId: null,
	})
	const job = () =>
		sql<{ id: string; state: string; started_on: Date | null; retry_count: number }>`
			select id, state, started_on, retry_count from pgboss.job
			where name = 'lead-scrape' and data->>'requestId' = ${requestId}`
			.execute(db)
			.then((r) => r.rows[0])
	const itemsRead = async () =>
		(
			await db
				.selectFrom('apollo_requests')
				.select('items_read')
				.where('id', '=', requestId)
				.executeTakeFirstOrThrow()
		).items_read
	await expect.poll(itemsRead, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(1000)
	// the worker that logged the job's start holds it: stop that one
	const { id } = (await job())!
	const holder = first.output().includes(id) ? first : second
	const other = holder === first ? second : first
	expect(holder.output()).toMatch(new RegExp(`"id":"${id}".*"msg":"job started"`))
	const stoppedAt = new Date()
	holder.child.kill('SIGTERM')
	expect(await holder.exited).toBe(0)

	await expect
		.poll(async () => (await job())?.started_on?.getTime() ?? 0, { timeout: 20_000, interval: 100 })
		.toBeGreaterThan(stoppedAt.getTime())
	const handedOverMs = (await job())!.started_on!.getTime() - stoppedAt.getTime()
	console.log(`lead-scrape picked up by the other worker ${handedOverMs} ms after SIGTERM`)
	expect(handedOverMs).toBeLessThan(10_000)
	pages.pageDelayMs = 0

	const list = () =>
		db.selectFrom('processing_list').selectAll().where('id', '=', listId).executeTakeFirstOrThrow()
	await expect.poll(async () => (await list()).status, { timeout: 60_000, interval: 250 }).toBe(2)
	const leads = await db
		.selectFrom('leads')
		.select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('email').distinct().as('unique')])
		.where('list_id', '=', listId)
		.executeTakeFirstOrThrow()
	expect(Number(leads.n)).toBe(10_000)
	expect(Number(leads.unique)).toBe(10_000)
	expect((await list()).found).toBe(10_000)
	// the shutdown did not count as a failed attempt
	expect((await job())!.retry_count).toBe(0)
	expect(other.output()).toMatch(new RegExp(`"id":"${id}".*"msg":"job started"`))
	other.child.kill('SIGTERM')
	expect(await other.exited).toBe(0)
}, 120_000)
