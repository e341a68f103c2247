// Issue 40, point 7: the embedded PostgreSQL dies (kill -9 of its postmaster) under the web
// process that started it. The process restarts it with back-off, /readyz says "not ready"
// (naming the embedded database) while it is down, /healthz stays ok (the process is
// recovering by itself: no restart loop), and pages work again with the data.
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDb } from '../../db/index.server.ts'
import { insertUser } from '../support/factories.ts'
import { freePort } from '../support/free-port.ts'
import { isRunning, postmasterPid, startServer } from './support/lifecycle.ts'

let dataDir: string
let pgPort: number
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

const probe = async (url: string) => {
	const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
	return { status: response.status, body: await response.text() }
}

test('the embedded PostgreSQL is restarted after a crash; /readyz says so meanwhile', async () => {
	// as `npm start` runs it: the web server with its workers (their queue is part of ready)
	const app = await startServer({
		DATA_DIR: dataDir,
		EMBEDDED_POSTGRES_PORT: String(pgPort),
		WORKERS: '1',
	})
	const db = createDb(embeddedUrl(), { max: 1 })
	const user = await insertUser(db, { email: `supervised-${Date.now()}@example.com` })
	await db.destroy()
	expect(await probe(`${app.url}/readyz`)).toMatchObject({ status: 200 })

	const crashed = postmasterPid(dataDir)!
	process.kill(crashed, 'SIGKILL')
	const killedAt = Date.now()
	await expect.poll(() => isRunning(crashed), { timeout: 5000, interval: 20 }).toBe(false)

	// down: not ready, and saying why; alive all the same
	const ready = await probe(`${app.url}/readyz`)
	expect(ready.status).toBe(503)
	expect(ready.body).toMatch(/embedded database: fail \(.*restart/)
	expect((await probe(`${app.url}/healthz`)).status).toBe(200)

	// back by itself, with the data, well within a minute
	await expect
		.poll(async () => (await probe(`${app.url}/readyz`)).status, { timeout: 60_000, interval: 250 })
		.toBe(200)
	const recoveredMs = Date.now() - killedAt
	console.log(`ready again ${recoveredMs} ms after kill -9 of the embedded PostgreSQL`)
	expect(postmasterPid(dataDir)).not.toBe(crashed)
	expect(app.output()).toMatch(/embedded PostgreSQL stopped unexpectedly/)
	const after = createDb(embeddedUrl(), { max: 1 })
	const row = await after
		.selectFrom('auth.users')
		.select('email')
		.where('id', '=', user.id)
		.executeTakeFirst()
	await after.destroy()
	expect(row?.email).toBe(user.email)
	expect((await probe(`${app.url}/signin`)).status).toBe(200)

	// a stop still stops it cleanly, the restarted server included
	const restarted = postmasterPid(dataDir)!
	app.child.kill('SIGTERM')
	expect(await app.exited).toBe(0)
	expect(isRunning(restarted)).toBe(false)
}, 180_000)
