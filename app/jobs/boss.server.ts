import { PgBoss } from 'pg-boss'
import { peekSingleton, singleton } from '../utils/singleton.server.ts'
import { getConfig } from '../config.server.ts'
import { logger } from '../utils/logger.server.ts'
import { jobDefinitions } from './registry.server.ts'

export const BOSS_SCHEMA = 'pgboss'

/** The process's pg-boss client, started, with a queue for every job kind. */
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
		boss.on('error', (error) => logger.error({ err: error }, 'job queue error'))
		await boss.start()
		const existing = new Set((await boss.getQueues()).map((q) => q.name))
		for (const job of jobDefinitions) {
			const options = {
				retryLimit: job.retryLimit ?? 3,
				retryDelay: job.retryDelaySeconds ?? 10,
				retryBackoff: true,
				expireInSeconds: job.expireInSeconds ?? 3600,
				// a worker that dies stops sending these; its job is then retried and resumes from its checkpoint
				heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
			}
			if (existing.has(job.name)) await boss.updateQueue(job.name, options)
			// another process (web and worker start together) may create it first
			else
				await boss.createQueue(job.name, options).catch(async (error) => {
					if (!(await boss.getQueue(job.name))) throw error
				})
		}
		return boss
	})
}

/** Stops this process's pg-boss client, if it was started (shutdown: before the database goes). */
export async function stopBoss() {
	const started = peekSingleton<Promise<PgBoss>>('pg-boss')
	if (!started) return
	const boss = await started.catch(() => null)
	await boss?.stop({ graceful: true, timeout: 10_000, close: true }).catch(() => {})
}
