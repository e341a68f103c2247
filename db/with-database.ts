import { getConfig } from '../app/config.server.ts'
import { createDb, type Database } from './index.server.ts'
import { startDatabase } from './start.ts'

/** For scripts: DATABASE_URL, or the embedded server in the data directory. */
export async function withDatabase<T>(work: (db: Database, url: string) => Promise<T>) {
	const database = await startDatabase(getConfig())
	const db = createDb(database.url, { max: 2 })
	try {
		return await work(db, database.url)
	} finally {
		await db.destroy()
		await database.stop()
	}
}
