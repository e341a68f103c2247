// `npm run worker`: job workers only, no web server. Point it at the web
// process's database with DATABASE_URL (the embedded server belongs to one process).
// First: re-executes with the memory limits when started without them (decision 0029).
import './app/server/apply-memory-limits.server.ts'
import { getConfigOrExit } from './app/config.server.ts'

const config = getConfigOrExit()
// A stop asked for while starting: nothing is served yet, so exit at once (the embedded
// PostgreSQL, if started, is stopped on exit; an unfinished migration rolls back).
const stopWhileStarting = () => process.exit(0)
process.once('SIGTERM', stopWhileStarting)
process.once('SIGINT', stopWhileStarting)
const { exitWithStartupFailure, survivingDatabaseRejections } =
	await import('./app/server/lifecycle.server.ts')

const { database, db, logger, workers } = await (async () => {
	const { startDatabase, migrateOrExplain } = await import('./db/start.ts')
	const database = await startDatabase(config)
	const { db } = await import('./db/index.server.ts')
	const { startWorkers } = await import('./app/jobs/worker.server.ts')
	const { logger } = await import('./app/utils/logger.server.ts')
	await migrateOrExplain(db)
	const workers = await startWorkers({ concurrency: Math.max(config.WORKERS, 1) })
	return { database, db, logger, workers }
})().catch(exitWithStartupFailure(config.APP_NAME))
survivingDatabaseRejections((error) =>
	logger.error({ err: error }, 'a lost database connection rejected unhandled; kept running'),
)
console.log(`${config.APP_NAME} workers are running (NODE_ENV=${process.env.NODE_ENV})`)

// SIGTERM/SIGINT: running jobs go back to the queue at once (another worker resumes them from
// their checkpoint), then the pools close and the embedded database, if any, stops last.
let closing = false
async function shutdown(signal: string) {
	if (closing) return
	closing = true
	logger.info({ signal }, 'handing running jobs back')
	await workers
		.stop({ handBack: { fence: () => db.destroy() } })
		.catch((error) => logger.error({ err: error }, 'workers did not stop cleanly'))
	await db.destroy().catch(() => {})
	await database.stop().catch((error) => logger.error({ err: error }, 'database did not stop'))
	process.exit(0)
}
process.off('SIGTERM', stopWhileStarting)
process.off('SIGINT', stopWhileStarting)
// a shutdown that fails still ends the process (the embedded PostgreSQL stops on exit)
function stopOrExit(signal: string) {
	shutdown(signal).catch((error: unknown) => {
		logger.error({ err: error }, 'shutdown failed')
		process.exit(1)
	})
}
process.on('SIGTERM', () => stopOrExit('SIGTERM'))
process.on('SIGINT', () => stopOrExit('SIGINT'))
