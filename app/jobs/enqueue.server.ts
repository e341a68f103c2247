import type { Kysely } from 'kysely'
import { fromKysely } from 'pg-boss'
import type { JobDefinition } from './define.server.ts'
import { getBoss } from './boss.server.ts'

/**
 * Queues a job. Pass the transaction that writes the job's status row as `db`
 * so that the row and the job exist together or not at all.
 */
export async function enqueue<T>(
	job: JobDefinition<T>,
	data: T,
	options: { db?: Kysely<any>; singletonKey?: string; startAfter?: Date } = {},
) {
	const payload = job.schema.parse(data) as object
	const boss = await getBoss()
	return boss.send(job.name, payload, {
		singletonKey: options.singletonKey,
		startAfter: options.startAfter,
		db: options.db ? fromKysely(options.db) : undefined,
	})
}
