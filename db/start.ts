import path from 'node:path'
import type { Kysely } from 'kysely'
import pg from 'pg'
import type { Config } from '../app/config.server.ts'
import { startEmbeddedPostgres, StartupError } from './embedded.ts'
import { migrateToLatest } from './migrator.ts'

/**
 * DATABASE_URL (checked to answer), or the embedded server in DATA_DIR/postgres (whose URL
 * is then put in process.env.DATABASE_URL for everything else in this process). A failure
 * is a StartupError whose message names the cause and the fix.
 */
export async function startDatabase(
	config: Config,
): Promise<{ url: string; stop: () => Promise<void> }> {
	if (config.DATABASE_URL) {
		await checkReachable(config.DATABASE_URL)
		return { url: config.DATABASE_URL, stop: async () => {} }
	}
	const embedded = await startEmbeddedPostgres({
		dir: path.join(config.DATA_DIR, 'postgres'),
		port: config.EMBEDDED_POSTGRES_PORT,
		// restarted when it dies while we run (decision 0061); the logger is not loaded yet here
		supervise: {
			onDown: (message) => console.error(message),
			onUp: (message) => console.log(message),
		},
	})
	process.env.DATABASE_URL = embedded.url
	return embedded
}

async function checkReachable(url: string) {
	const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
	client.on('error', () => {})
	try {
		await client.connect()
		await client.query('select 1')
	} catch (error) {
		const where = describe(url)
		throw new StartupError(
			`Cannot reach the database at ${where} (${reason(error)}): check DATABASE_URL and that PostgreSQL is running there.`,
		)
	} finally {
		await client.end().catch(() => {})
	}
}

// host, port and database only: the URL's password never reaches the output
function describe(url: string) {
	const parsed = new URL(url)
	// a Unix socket's directory, given as ?host=
	const host = parsed.searchParams.get('host') ?? parsed.hostname
	return `${host}:${parsed.port || 5432}${parsed.pathname}`
}

function reason(error: unknown) {
	const e = error as { code?: string; message?: string }
	switch (e.code) {
		case 'ECONNREFUSED':
		case 'ENOENT':
			return 'nothing listens there'
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'unknown host'
		case 'ETIMEDOUT':
			return 'no answer'
		case '28P01':
		case '28000':
			return 'user or password rejected'
		case '3D000':
			return 'no such database'
		default:
			return /timeout/i.test(e.message ?? '')
				? 'no answer within 10 s'
				: (e.message ?? String(error))
	}
}

/** Migrations at start; a failure names the migration and what to do. */
export async function migrateOrExplain(db: Kysely<any>) {
	try {
		return await migrateToLatest(db)
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error)
		throw new StartupError(
			`The database migrations failed (${message}) and were rolled back: fix the cause in the database, or restore a backup, and start again.`,
		)
	}
}
