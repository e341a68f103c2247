// Issue 15, points 1 and 4: the default install (embedded PostgreSQL in DATA_DIR, as
// `npm start` runs it) is crash safe, and starting again after kill -9 just works.
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDb } from '../../db/index.server.ts'
import { insertUser } from '../support/factories.ts'
import { freePort } from '../support/free-port.ts'
import { isRunning, postmasterPid, startServer } from './support/lifecycle.ts'

let dataDir: string
let pgPort: number
const env = () => ({ DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(pgPort) })
const embeddedUrl = () => `postgres://postgres:postgres@127.0.0.1:${pgPort}/postgres`

beforeAll(async () => {
	dataDir = await mkdtemp(path.join(tmpdir(), 'leadsmith-fault-'))
	await chmod(dataDir, 0o755) // the server runs as the postgres user when we are root
	pgPort = await freePort()
})
afterAll(async () => {
	const pid = postmasterPid(dataDir)
	if (pid && isRunning(pid)) process.kill(pid, 'SIGQUIT')
	await rm(dataDir, { recursive: true, force: true })
})

test("the default install's database is crash safe: fsync, full page writes and synchronous commit are on", async () => {
	const app = await startServer(env())
	const db = createDb(embeddedUrl(), { max: 1 })
	try {
		const { rows } = await sql<{ name: string; setting: string }>`
			select name, setting from pg_settings
			where name in ('fsync', 'full_page_writes', 'synchronous_commit')`.execute(db)
		expect(Object.fromEntries(rows.map((r) => [r.name, r.setting]))).toEqual({
			fsync: 'on',
			full_page_writes: 'on',
			synchronous_commit: 'on',
		})
	} finally {
		await db.destroy()
	}
	const pid = postmasterPid(dataDir)!
	app.child.kill('SIGTERM')
	expect(await app.exited).toBe(0)
	// the embedded server went down with it, cleanly (no pid file left)
	expect(isRunning(pid)).toBe(false)
	expect(postmasterPid(dataDir)).toBeUndefined()
}, 150_000)

test('after kill -9 of the web process, starting again serves /healthz and keeps the data', async () => {
	const first = await startServer(env())
	const db = createDb(embeddedUrl(), { max: 1 })
	const user = await insertUser(db, { email: `before-crash-${Date.now()}@example.com` })
	await db.destroy()

	first.child.kill('SIGKILL')
	await first.exited
	// the fault: its PostgreSQL outlives it and still holds the data directory
	const leftover = postmasterPid(dataDir)!
	expect(isRunning(leftover)).toBe(true)

	const second = await startServer(env())
	expect(second.output()).not.toContain('undefined')
	expect(isRunning(leftover)).toBe(false)
	const health = await fetch(`${second.url}/healthz`)
	expect(health.status).toBe(200)
	expect(await health.text()).toBe('ok')
	const after = createDb(embeddedUrl(), { max: 1 })
	const row = await after
		.selectFrom('auth.users')
		.select('email')
		.where('id', '=', user.id)
		.executeTakeFirst()
	await after.destroy()
	expect(row?.email).toBe(user.email)
	// the platform admin made at the first start is still there: no new password is printed
	expect(second.output()).not.toContain('Platform admin:')

	second.child.kill('SIGTERM')
	expect(await second.exited).toBe(0)
}, 150_000)
