import { readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { databaseUrlFor, startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded.ts'
import { createDb } from '../../db/index.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { freePort } from './free-port.ts'

/**
 * A PostgreSQL server of this test file's own, so the test can crash it and start it again
 * (the shared test server must stay up). Its `leadsmith` database is empty: the app's
 * process migrates it at start. This process's `db` is pointed at it. `crashSafe`: commits
 * survive `crash()` (synchronous commit), for tests that check what a crash may not lose.
 */
export async function ownPostgres(options: { crashSafe?: boolean } = {}) {
	const dir = await mkdtemp(path.join(tmpdir(), 'leadsmith-fault-pg-'))
	await chmod(dir, 0o755)
	const port = await freePort()
	const dataDir = path.join(dir, 'data')
	const start = () =>
		startEmbeddedPostgres({
			dir: dataDir,
			port,
			persistent: true,
			// without synchronous commits a crash loses the last commits the client saw succeed
			unsafeFastWrites: !options.crashSafe,
		})
	let server: EmbeddedDatabase = await start()
	const admin = createDb(server.url, { max: 1 })
	await sql.raw('create database leadsmith').execute(admin)
	await admin.destroy()
	const url = databaseUrlFor(server.url, 'leadsmith')
	process.env.DATABASE_URL = url
	for (const key of ['db', 'db-jobs', 'pg-pool', 'pg-job-pool', 'config', 'pg-boss'])
		resetSingleton(key)
	return {
		url,
		/** `pg_ctl stop -m immediate`: the postmaster gets SIGQUIT, every backend dies at once. */
		async crash() {
			const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
			process.kill(pid, 'SIGQUIT')
			while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20))
		},
		async restart() {
			server = await start()
		},
		async stop() {
			await server.stop()
			await rm(dir, { recursive: true, force: true })
		},
	}
}

function alive(pid: number) {
	try {
		process.kill(pid, 0)
		return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
	} catch {
		return false
	}
}
