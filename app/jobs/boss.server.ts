import { PgBoss } from 'pg-boss'
import { singleton } from '../utils/singleton.server.ts'
import { logger } from '../utils/logger.server.ts'
import { jobDefinitions } from './registry.server.ts'

export const BOSS_SCHEMA = 'pgboss'

/** The process's pg-boss client, started, with a queue for every job kind. */
export function getBoss(): Promise<PgBoss> {
	return singleton('pg-boss', async () => {
		const url = process.env.DATABASE_URL
		if (!url) throw new Error('DATABASE_URL is not set')
		const boss = new PgBoss({ connectionString: url, schema: BOSS_SCHEMA, max: 4 })
		boss.on('error', (error) => logger.error({ err: error }, 'job queue error'))
		await boss.start()
		const existing = new Set((await boss.getQueues()).map((q) => q.name))
		for (const job of jobDefinitions) {
			if (existing.has(job.name)) continue
			await boss.createQueue(job.name, {
				retryLimit: job.retryLimit ?? 3,
				retryDelay: job.retryDelaySeconds ?? 10,
				retryBackoff: true,
				expireInSeconds: job.expireInSeconds ?? 3600,
			})
		}
		return boss
	})
}
