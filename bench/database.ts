import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../tests/support/free-port.ts'

/**
 * A fresh embedded PostgreSQL for one bench run, in a temporary folder (`dataDir`) on a free
 * port; `stop()` stops it and removes the folder. With `appEnvironment`, the app's code in this
 * process runs on it as in production (DATABASE_URL, DATA_DIR, NODE_ENV, a quiet log), with
 * the extra settings given.
 */
export async function startBenchDatabase(name: string, appEnvironment?: Record<string, string>) {
	const dataDir = mkdtempSync(path.join(tmpdir(), `leadsmith-bench-${name}-`))
	chmodSync(dataDir, 0o755) // the server runs as the postgres user when we are root
	const { startEmbeddedPostgres } = await import('../db/embedded.ts')
	const pg = await startEmbeddedPostgres({
		dir: path.join(dataDir, 'pg'),
		port: await freePort(),
		persistent: false,
	})
	if (appEnvironment)
		Object.assign(process.env, {
			NODE_ENV: 'production',
			LOG_LEVEL: 'warn',
			DATA_DIR: dataDir,
			DATABASE_URL: pg.url,
			APP_SECRET: 'bench-secret-bench-secret-bench-secret-0',
			...appEnvironment,
		})
	return {
		dataDir,
		url: pg.url,
		async stop() {
			await pg.stop()
			rmSync(dataDir, { recursive: true, force: true })
		},
	}
}
