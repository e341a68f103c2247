import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { getCreditBalance, grantCredits } from '../../app/services/billing/credits.server.ts'
import { createLeadScrape } from '../../app/services/leads/create-lead-scrape.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeApify, type FakeApify } from '../fakes/apify/server.ts'
import { insertUser } from '../support/factories.ts'
import { workerProcesses } from '../support/worker-process.ts'

// Fault: a job's connection is killed by the server (57P01 admin_shutdown) in the middle of a
// write, while the database itself stays up. The job must retry and resume from its
// checkpoint, not fail the list and refund (issue 15, point 8). This process only enqueues;
// `node worker.ts` runs the job.
let apify: FakeApify
const workers = workerProcesses()

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

test('a job whose connection is killed mid-write retries and finishes exactly, no refund', async () => {
	const worker = workers.start()
	await worker.ready
	apify.scenario('transient', { pageDelayMs: 300 })
	const user = await insertUser(db)
	await grantCredits(db, {
		accountId: user.id,
		amount: 10_000,
		reason: 'admin',
		reference: `seed-${user.id}`,
	})
	const me = await loadAccountContext(db, user)
	const before = await getCreditBalance(user.id)

	// Hold the request row, so the job's first checkpoint write waits on it.
	const holder = await db.connection().execute(async (connection) => {
		await sql`begin`.execute(connection)
		const { listId, requestId } = await createLeadScrape(me, {
			name: 'Transient',
			url: 'https://app.apollo.io/#/people?qKeywords=transient',
			count: 3000,
			payWith: 'credits',
			workspaceId: null,
		})
		await sql`select 1 from apollo_requests where id = ${requestId} for update`.execute(connection)
		// the job's write is now waiting for the row: kill that connection
		const waiting = async () =>
			(
				await sql<{ pid: number }>`
					select pid from pg_stat_activity
					where datname = current_database() and wait_event_type = 'Lock'
						and query ilike 'update "apollo_requests"%'`.execute(db)
			).rows
		await expect.poll(async () => (await waiting()).length, { timeout: 30_000 }).toBe(1)
		const { pid } = (await waiting())[0]!
		await sql`select pg_terminate_backend(${pid})`.execute(db)
		await sql`rollback`.execute(connection)
		return { listId }
	})

	const list = () =>
		db
			.selectFrom('processing_list')
			.select(['status', 'found', 'error'])
			.where('id', '=', holder.listId)
			.executeTakeFirstOrThrow()
	// retried after the queue's retry delay, resumed from the checkpoint
	await expect
		.poll(async () => (await list()).status, { timeout: 60_000, interval: 250 })
		.toBeGreaterThanOrEqual(2)
	expect(await list()).toMatchObject({ status: 2, found: 3000, error: null })
	const leads = await db
		.selectFrom('leads')
		.select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('email').distinct().as('unique')])
		.where('list_id', '=', holder.listId)
		.executeTakeFirstOrThrow()
	expect(Number(leads.n)).toBe(3000)
	expect(Number(leads.unique)).toBe(3000)
	// every credit reserved was used: nothing refunded, nothing charged twice
	expect(await getCreditBalance(user.id)).toBe(before - 3000)
	worker.child.kill('SIGTERM')
}, 90_000)
