import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../tests/support/free-port.ts'

/**
 * A fresh embedded PostgreSQL for one bench run, in a temporary folder (`dataDir`, also the
 * run's DATA_DIR) on a free port; `stop()` stops it and removes the folder.
 */
export async function startBenchDatabase(name: string) {
	const dataDir = mkdtempSync(path.join(tmpdir(), `leadsmith-bench-${name}-`))
	chmodSync(dataDir, 0o755) // the server runs as the postgres user when we are root
	const { startEmbeddedPostgres } = await import('../db/embedded.ts')
	const pg = await startEmbeddedPostgres({
		dir: path.join(dataDir, 'pg'),
		port: await freePort(),
		persistent: false,
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
