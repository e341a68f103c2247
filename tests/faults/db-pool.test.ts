import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import {
	loadEmailBisonAccess,
	saveEmailBisonSettings,
} from '../../app/services/emailbison/settings.server.ts'
import { listEbCampaigns } from '../../app/services/emailbison/uploads.server.ts'
import {
	LOCK_BUSY_MESSAGE,
	lockKey,
} from '../../app/services/emailbison/workspace-client.server.ts'
import { FormError } from '../../app/utils/http-errors.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { insertUser } from '../support/factories.ts'
import { getPage, signUpOverHttp, startServerProcess } from '../support/server-process.ts'

// Fault (issue 15, point 6): a job holds connections (an EmailBison upload holds its key's
// advisory lock for its whole run) or the web pool runs dry. Pages must neither wait on a
// job's lock nor hang for a connection.

// this process plays the web process with a small pool (read when the pool is first made)
process.env.DB_POOL_MAX = '3'
process.env.DB_CONNECT_TIMEOUT_MS = '1000'

let eb: FakeEmailBison
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
	eb.setMintSupported(false) // no api-user keys: every call switches under the lock
})
afterAll(async () => {
	await eb.close()
})

test("pages never wait on an upload's lock: they say the key is busy, and the pool stays free", async () => {
	const user = await insertUser(db)
	await saveEmailBisonSettings(await loadAccountContext(db, user), {
		url: `${eb.url}/api/`,
		apiKey: eb.superAdminKey,
	})
	const access = (await loadEmailBisonAccess(user.id))!
	const workspaceId = [...eb.workspaces.keys()][0]!

	// an upload holding the super-admin key's lock, on its own connection
	const upload = new pg.Client({ connectionString: process.env.DATABASE_URL })
	await upload.connect()
	await upload.query('select pg_advisory_lock(hashtextextended($1, 0))', [lockKey(access)])
	try {
		const started = performance.now()
		// four times the pool's size in upload page views at once
		const views = Array.from({ length: 12 }, () =>
			listEbCampaigns(user.id, workspaceId).then(
				() => 'listed',
				(error: unknown) => (error instanceof FormError ? error.message : String(error)),
			),
		)
		const other = performance.now()
		await db.selectFrom('profiles').select('user_id').limit(1).execute()
		const otherMs = performance.now() - other
		const outcomes = await Promise.all(views)
		const elapsed = performance.now() - started
		expect(new Set(outcomes)).toEqual(new Set([LOCK_BUSY_MESSAGE]))
		expect(otherMs).toBeLessThan(1000)
		expect(elapsed).toBeLessThan(10_000)
		console.log(
			`12 upload views on a held lock: ${Math.round(elapsed)} ms; another query ${Math.round(otherMs)} ms`,
		)
	} finally {
		await upload.end()
	}
	// the upload done: the page lists the campaigns again
	expect(Array.isArray(await listEbCampaigns(user.id, workspaceId))).toBe(true)
})

test('a request that gets no connection in time answers 503, not a hang', async () => {
	const server = await startServerProcess(process.env.DATABASE_URL!, {
		WORKERS: '0',
		DB_POOL_MAX: '2',
		DB_CONNECT_TIMEOUT_MS: '1000',
	})
	const holder = new pg.Client({ connectionString: process.env.DATABASE_URL })
	try {
		const cookie = await signUpOverHttp(server.url, `pool-${Date.now()}@example.com`)
		const normal = await getPage(server.url, '/', cookie)
		expect(normal.status).toBeLessThan(500)

		// every signed-in page reads profiles: while it is locked, two views take both connections
		await holder.connect()
		await holder.query('begin')
		await holder.query('lock table profiles in access exclusive mode')
		const stuck = [getPage(server.url, '/', cookie), getPage(server.url, '/', cookie)]
		const waiting = async () =>
			(
				await sql<{ n: number }>`
					select count(*)::int as n from pg_stat_activity
					where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
			).rows[0]!.n
		await expect.poll(waiting, { timeout: 20_000 }).toBe(2)

		const third = await getPage(server.url, '/', cookie)
		expect(third.status).toBe(503)
		expect(third.retryAfter).toBe('5')
		expect(third.body).toContain('Temporarily unavailable')
		expect(third.ms).toBeLessThan(5000)
		console.log(`a view with the pool exhausted answered 503 in ${Math.round(third.ms)} ms`)

		await holder.query('rollback')
		for (const page of await Promise.all(stuck)) expect(page.status).toBe(normal.status)
		expect((await getPage(server.url, '/', cookie)).status).toBe(normal.status)
	} finally {
		await holder.end().catch(() => {})
		server.child.kill('SIGKILL')
	}
}, 240_000)
