import path from 'node:path'
import type { Config } from '../app/config.server.ts'
import { startEmbeddedPostgres } from './embedded.ts'

/**
 * DATABASE_URL, or the embedded server in DATA_DIR/postgres (whose URL is
 * then put in process.env.DATABASE_URL for everything else in this process).
 */
export async function startDatabase(
	config: Config,
): Promise<{ url: string; stop: () => Promise<void> }> {
	if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: async () => {} }
	const embedded = await startEmbeddedPostgres({
		dir: path.join(config.DATA_DIR, 'postgres'),
		port: config.EMBEDDED_POSTGRES_PORT,
	})
	process.env.DATABASE_URL = embedded.url
	return embedded
}
