// The web process: PostgreSQL (DATABASE_URL or embedded), migrations, the
// embedded auth service, static assets and React Router behind Express.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { getConfigOrExit } from './app/config.server.ts'

const config = getConfigOrExit()

const { startDatabase } = await import('./db/start.ts')
const database = await startDatabase(config)

const { createApp } = await import('./app/server/app.server.ts')
const { prepareDatabase } = await import('./app/server/prepare.server.ts')
const { db } = await import('./db/index.server.ts')
const { logger } = await import('./app/utils/logger.server.ts')
const { loadedReactBuild } = await import('./app/utils/react-build.server.ts')

const prepared = await prepareDatabase()
const app = await createApp({ nonce: () => randomBytes(16).toString('base64') })
// Web and workers share one process unless WORKERS=0 (then run `npm run worker` elsewhere).
const { startWorkers } = await import('./app/jobs/worker.server.ts')
const workers = config.WORKERS > 0 ? await startWorkers({ concurrency: config.WORKERS }) : null

const server = app.listen(config.PORT, config.HOST, () => {
	const { port } = server.address() as AddressInfo
	const url = config.APP_URL.includes(`:${config.PORT}`)
		? config.APP_URL.replace(`:${config.PORT}`, `:${port}`)
		: config.APP_URL
	console.log(`${config.APP_NAME} is running at ${url}`)
	console.log(`NODE_ENV=${process.env.NODE_ENV}, React ${loadedReactBuild()} build`)
	if (prepared.admin) {
		console.log(
			`Platform admin: ${prepared.admin.email} / ${prepared.admin.password} (sign in at ${url}/admin-login; shown once)`,
		)
	}
	if (!existsSync('build/server/index.js') && config.NODE_ENV !== 'development') {
		console.warn('No build found: run `npm run build`')
	}
})

let closing = false
async function shutdown(signal: string) {
	if (closing) return
	closing = true
	logger.info({ signal }, 'shutting down')
	server.close()
	server.closeIdleConnections()
	const force = setTimeout(() => server.closeAllConnections(), 10_000)
	force.unref()
	await Promise.all([
		new Promise((resolve) => server.once('close', resolve)),
		workers?.stop().catch((error) => logger.error({ err: error }, 'workers did not stop cleanly')),
	])
	const { stopBoss } = await import('./app/jobs/boss.server.ts')
	await stopBoss()
	await db.destroy().catch(() => {})
	await database.stop().catch(() => {})
	process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
