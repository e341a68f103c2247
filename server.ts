// The web process: PostgreSQL (DATABASE_URL or embedded), migrations, the
// embedded auth service, static assets and React Router behind Express.
import { existsSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
// First: re-executes with the memory limits when started without them (decision 0029).
import './app/server/apply-memory-limits.server.ts'
import { getConfigOrExit } from './app/config.server.ts'

const config = getConfigOrExit()
// A stop asked for while starting: nothing is served yet, so exit at once (the embedded
// PostgreSQL, if started, is stopped on exit; an unfinished migration rolls back).
const stopWhileStarting = () => process.exit(0)
process.once('SIGTERM', stopWhileStarting)
process.once('SIGINT', stopWhileStarting)
const { drainRequests, exitWithStartupFailure, survivingDatabaseRejections, trackResponses } =
	await import('./app/server/lifecycle.server.ts')
const { loadedReactBuild } = await import('./app/utils/react-build.server.ts')

// Every start-up failure ends here as one sentence naming the cause and the fix (decision 0025).
const { database, db, logger, workers, server, prepared } = await (async () => {
	const { startDatabase, migrateOrExplain } = await import('./db/start.ts')
	const database = await startDatabase(config)
	const { createApp } = await import('./app/server/app.server.ts')
	const { prepareDatabase } = await import('./app/server/prepare.server.ts')
	const { db } = await import('./db/index.server.ts')
	const { logger } = await import('./app/utils/logger.server.ts')
	await migrateOrExplain(db)
	const prepared = await prepareDatabase()
	const { cspNonce } = await import('./app/server/nonce.server.ts')
	const app = await createApp({ nonce: cspNonce })
	// Web and workers share one process unless WORKERS=0 (then run `npm run worker` elsewhere).
	const { startWorkers } = await import('./app/jobs/worker.server.ts')
	const workers = config.WORKERS > 0 ? await startWorkers({ concurrency: config.WORKERS }) : null
	const server = await new Promise<Server>((resolve, reject) => {
		const server = app.listen(config.PORT, config.HOST, (error?: Error) =>
			error ? reject(error) : resolve(server),
		)
	})
	return { database, db, logger, workers, server, prepared }
})().catch(exitWithStartupFailure(config.APP_NAME))

trackResponses(server)
// An idle keep-alive connection is closed by the side that waits less: Node's 5 s let a client
// (a proxy, a browser, a script) send its next request just as the server closed the socket,
// and that request died with ECONNRESET (seen in CI). Longer than the 60 s idle of common load
// balancers, so they close first; the headers of a request still have their own limit.
server.keepAliveTimeout = 65_000
const { port } = server.address() as AddressInfo
const url = config.APP_URL.includes(`:${config.PORT}`)
	? config.APP_URL.replace(`:${config.PORT}`, `:${port}`)
	: config.APP_URL
survivingDatabaseRejections((error) =>
	logger.error({ err: error }, 'a lost database connection rejected unhandled; kept running'),
)
console.log(`${config.APP_NAME} is running at ${url}`)
console.log(
	`NODE_ENV=${process.env.NODE_ENV}, mode ${config.NODE_ENV}, React ${loadedReactBuild()} build`,
)
if (prepared.admin) {
	console.log(
		`Platform admin: ${prepared.admin.email} / ${prepared.admin.password} (sign in at ${url}/admin-login; shown once)`,
	)
}
if (!existsSync('build/server/index.js') && config.NODE_ENV !== 'development') {
	console.warn('No build found: run `npm run build`')
}

// SIGTERM/SIGINT: stop accepting, let requests in flight finish (up to the grace period), hand
// running jobs back to the queue, then close the pools and stop the embedded database last.
let closing = false
async function shutdown(signal: string) {
	if (closing) return
	closing = true
	logger.info({ signal }, 'shutting down')
	const { cut } = await drainRequests(server, config.SHUTDOWN_GRACE_SECONDS * 1000)
	if (cut) logger.warn('requests still running after SHUTDOWN_GRACE_SECONDS were cut off')
	await workers
		?.stop({ handBack: { fence: () => db.destroy() } })
		.catch((error) => logger.error({ err: error }, 'workers did not stop cleanly'))
	const { stopBoss } = await import('./app/jobs/boss.server.ts')
	await stopBoss()
	const { stopListeningForForwardingChanges } =
		await import('./app/services/domains/forwarding-cache.server.ts')
	await stopListeningForForwardingChanges()
	await db.destroy().catch(() => {})
	await database.stop().catch((error) => logger.error({ err: error }, 'database did not stop'))
	logger.info('stopped')
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
