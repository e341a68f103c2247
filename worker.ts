// `npm run worker`: job workers only, no web server. Point it at the web
// process's database with DATABASE_URL (the embedded server belongs to one process).
import { getConfigOrExit } from './app/config.server.ts'

const config = getConfigOrExit()

const { startDatabase } = await import('./db/start.ts')
const database = await startDatabase(config)
const { db } = await import('./db/index.server.ts')
const { migrateToLatest } = await import('./db/migrate.ts')
const { startWorkers } = await import('./app/jobs/worker.server.ts')
const { logger } = await import('./app/utils/logger.server.ts')

await migrateToLatest(db)
const workers = await startWorkers({ concurrency: Math.max(config.WORKERS, 1) })
console.log(`${config.APP_NAME} workers are running (NODE_ENV=${process.env.NODE_ENV})`)

let closing = false
async function shutdown(signal: string) {
	if (closing) return
	closing = true
	logger.info({ signal }, 'draining workers')
	await workers
		.stop()
		.catch((error) => logger.error({ err: error }, 'workers did not stop cleanly'))
	await db.destroy().catch(() => {})
	await database.stop().catch(() => {})
	process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
