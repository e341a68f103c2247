import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { databaseUrlFor, startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded.ts'
import { createDb, db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { stopBoss } from '../../app/jobs/boss.server.ts'
import { getCreditBalance, grantCredits } from '../../app/services/billing/credits.server.ts'
import { createLeadScrape } from '../../app/services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeApify, type FakeApify } from '../fakes/apify/server.ts'
import { freePort } from '../support/free-port.ts'
import {
	getPage,
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'
import { workerProcesses } from '../support/worker-process.ts'

// Fault (issue 15, point 2): PostgreSQL stops for a while and starts again while pages are
// served and a job runs. The web process (`node server.ts`, WORKERS=0) and the worker
// (`node worker.ts`) run against a server this test started, so it can stop and start it.
const OUTAGE_MS = 8000
let dir: string
let port: number
let postgres: EmbeddedDatabase
let url: string
let apify: FakeApify
let server: ServerProcess
const workers = workerProcesses()

const startPostgres = () =>
	startEmbeddedPostgres({ dir: path.join(dir, 'data'), port, persistent: true })

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'leadsmith-fault-pg-'))
	await chmod(dir, 0o755)
	port = await freePort()
	postgres = await startPostgres()
	const admin = createDb(postgres.url, { max: 1 })
	await sql.raw('create database leadsmith').execute(admin)
	await admin.destroy()
	url = databaseUrlFor(postgres.url, 'leadsmith')

	apify = await startFakeApify()
	process.env.APIFY_BASE_URL = apify.url
	process.env.APIFY_TOKEN = apify.token
	process.env.DATABASE_URL = url
	for (const key of ['db', 'db-jobs', 'pg-pool', 'pg-job-pool', 'config', 'pg-boss'])
		resetSingleton(key)
	server = await startServerProcess(url, { WORKERS: '0', DB_CONNECT_TIMEOUT_MS: '2000' })
}, 240_000)

afterAll(async () => {
	workers.killAll()
	server?.child.kill('SIGKILL')
	await stopBoss()
	await db.destroy()
	await apify?.close()
	await postgres?.stop()
	await rm(dir, { recursive: true, force: true })
})

test('a database restart: no process exits, pages say 503 meanwhile, the job finishes exactly', async () => {
	const worker = workers.start()
	await worker.ready
	const email = `restart-${Date.now()}@example.com`
	const cookie = await signUpOverHttp(server.url, email)
	const normal = await getPage(server.url, '/', cookie)
	expect(normal.status).toBeLessThan(500)

	const user = await db
		.selectFrom('auth.users')
		.select(['id', 'email'])
		.where('email', '=', email)
		.executeTakeFirstOrThrow()
	await grantCredits(db, { accountId: user.id, amount: 10_000, reason: 'admin', reference: 'seed' })
	const me = await loadAccountContext(db, { id: user.id, email })
	apify.scenario('restart', { pageDelayMs: 1200 })
	const { listId, requestId } = await createLeadScrape(me, {
		name: 'Restart',
		url: 'https://app.apollo.io/#/people?qKeywords=restart',
		count: 5000,
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
	await expect.poll(itemsRead, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(1000)

	// The fault: PostgreSQL goes away (fast shutdown: every connection gets 57P01).
	await postgres.stop()
	const stoppedAt = Date.now()
	const during = await Promise.all([
		...Array.from({ length: 8 }, () => getPage(server.url, '/', cookie)),
		getPage(server.url, '/readyz'),
	])
	for (const page of during.slice(0, -1)) {
		expect(page.status).toBe(503)
		expect(page.retryAfter).toBe('5')
		expect(page.body).toContain('Temporarily unavailable')
		expect(page.body).not.toContain('Doesn&#x27;t Exist')
	}
	expect(during.at(-1)!.status).toBe(503)
	expect(Math.max(...during.map((p) => p.ms))).toBeLessThan(5000)
	// the rest of the outage: its length is the fault itself
	await new Promise((resolve) =>
		setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))),
	)
	expect(server.exited()).toBe(false)
	expect(worker.child.exitCode).toBeNull()

	postgres = await startPostgres()
	const restartedAt = Date.now()
	await expect
		.poll(async () => (await getPage(server.url, '/', cookie)).status, { timeout: 15_000 })
		.toBe(normal.status)
	const recoveredMs = Date.now() - restartedAt
	expect((await getPage(server.url, '/readyz')).status).toBe(200)
	console.log(`pages answered again ${recoveredMs} ms after PostgreSQL was back`)

	// the forwarding cache's LISTEN client reconnects by itself
	await expect
		.poll(
			async () =>
				(
					await sql<{ n: number }>`
						select count(*)::int as n from pg_stat_activity
						where query ilike 'LISTEN domain_forwarding_changed%'`.execute(db)
				).rows[0]!.n,
			{ timeout: 20_000 },
		)
		.toBeGreaterThanOrEqual(1)

	// the job resumes by itself and finishes exactly
	const list = () =>
		db
			.selectFrom('processing_list')
			.select(['status', 'found', 'error'])
			.where('id', '=', listId)
			.executeTakeFirstOrThrow()
	await expect
		.poll(async () => (await list()).status, { timeout: 90_000, interval: 250 })
		.toBeGreaterThanOrEqual(2)
	expect(await list()).toMatchObject({ status: 2, found: 5000, error: null })
	const leads = await db
		.selectFrom('leads')
		.select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('email').distinct().as('unique')])
		.where('list_id', '=', listId)
		.executeTakeFirstOrThrow()
	expect(Number(leads.n)).toBe(5000)
	expect(Number(leads.unique)).toBe(5000)
	expect(await getCreditBalance(user.id)).toBe(10_000 - 5000)
	expect(server.exited()).toBe(false)
	expect(worker.child.exitCode).toBeNull()
}, 200_000)
