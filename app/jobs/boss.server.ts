import { PgBoss } from 'pg-boss'
import { peekSingleton, singleton } from '../utils/singleton.server.ts'
import { getConfig } from '../config.server.ts'
import { logger } from '../utils/logger.server.ts'

export const BOSS_SCHEMA = 'pgboss'

/** A queue's retry and expiry settings (a job definition's, or the defaults). */
export type QueueSettings = {
	retryLimit?: number
	retryDelaySeconds?: number
	expireInSeconds?: number
}

/** The process's pg-boss client, started (it knows no job kinds: the worker registers them). */
export function getBoss(): Promise<PgBoss> {
	return singleton('pg-boss', async () => {
		const url = process.env.DATABASE_URL
		if (!url) throw new Error('DATABASE_URL is not set')
		const config = getConfig()
		const boss = new PgBoss({
			connectionString: url,
			schema: BOSS_SCHEMA,
			max: 4,
			// how soon a job whose worker died (no heartbeat) is retried
			monitorIntervalSeconds: config.JOB_MONITOR_SECONDS,
			superviseIntervalSeconds: config.JOB_MONITOR_SECONDS,
		})
		// pg-boss keeps polling through a database restart and reports each failure here
		boss.on('error', (error) => logger.warn({ err: error }, 'job queue error'))
		await boss.start()
		return boss
	})
}

function queueOptions(settings: QueueSettings) {
	return {
		retryLimit: settings.retryLimit ?? 3,
		retryDelay: settings.retryDelaySeconds ?? 10,
		retryBackoff: true,
		expireInSeconds: settings.expireInSeconds ?? 3600,
		// a worker that dies stops sending these; its job is then retried and resumes from its checkpoint
		heartbeatSeconds: getConfig().JOB_HEARTBEAT_SECONDS,
	}
}

const known = new Set<string>()

/** Creates the queue when missing (defaults until a worker sets the kind's own settings). */
export async function ensureQueue(boss: PgBoss, name: string) {
	if (known.has(name)) return
	if (!(await boss.getQueue(name)))
		// another process (web and worker start together) may create it first
		await boss.createQueue(name, queueOptions({})).catch(async (error) => {
			if (!(await boss.getQueue(name))) throw error
		})
	known.add(name)
}

/** Creates or updates the queue of a job kind with its settings (the worker, at start). */
export async function configureQueue(boss: PgBoss, name: string, settings: QueueSettings) {
	const options = queueOptions(settings)
	if (await boss.getQueue(name)) await boss.updateQueue(name, options)
	else
		await boss.createQueue(name, options).catch(async (error) => {
			if (!(await boss.getQueue(name))) throw error
			await boss.updateQueue(name, options)
		})
	known.add(name)
}

/** Stops this process's pg-boss client, if it was started (shutdown: before the database goes). */
export async function stopBoss() {
	const started = peekSingleton<Promise<PgBoss>>('pg-boss')
	if (!started) return
	const boss = await started.catch(() => null)
	await boss?.stop({ graceful: true, timeout: 10_000, close: true }).catch(() => {})
}
