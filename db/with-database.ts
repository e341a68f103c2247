import { getConfig } from '../app/config.server.ts'
import { createDb, type Database } from './index.server.ts'
import { startEmbeddedPostgres } from './embedded.ts'
import path from 'node:path'

/** For scripts: DATABASE_URL, or the embedded server in the data directory. */
export async function withDatabase<T>(work: (db: Database, url: string) => Promise<T>) {
	const config = getConfig()
	let url = config.DATABASE_URL
	let stop = async () => {}
	if (!url) {
		const embedded = await startEmbeddedPostgres({
			dir: path.join(config.DATA_DIR, 'postgres'),
			port: config.EMBEDDED_POSTGRES_PORT,
		})
		url = embedded.url
		stop = embedded.stop
	}
	const db = createDb(url, { max: 2 })
	try {
		return await work(db, url)
	} finally {
		await db.destroy()
		await stop()
	}
}
