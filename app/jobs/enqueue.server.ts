import type { Kysely } from 'kysely'
import { fromKysely } from 'pg-boss'
import { ensureQueue, getBoss } from './boss.server.ts'
import { jobPayloads, type JobName, type JobPayload } from './payloads.ts'

/**
 * Queues a job by its name, its payload checked first. Pass the transaction that writes the
 * job's status row as `db` so that the row and the job exist together or not at all.
 * Imports no job definition (see payloads.ts): the worker registers those.
 */
export async function enqueue<N extends JobName>(
	name: N,
	data: JobPayload<N>,
	options: { db?: Kysely<any>; singletonKey?: string; startAfter?: Date } = {},
) {
	const payload = jobPayloads[name].parse(data) as object
	const boss = await getBoss()
	// A process without workers may queue before any worker made the queue.
	await ensureQueue(boss, name)
	return boss.send(name, payload, {
		singletonKey: options.singletonKey,
		startAfter: options.startAfter,
		db: options.db ? fromKysely(options.db) : undefined,
	})
}

/** Queues many jobs of one kind in one statement (in `db`'s transaction when given). */
export async function enqueueMany<N extends JobName>(
	name: N,
	jobs: { data: JobPayload<N>; startAfter?: Date }[],
	options: { db?: Kysely<any> } = {},
) {
	if (jobs.length === 0) return
	const boss = await getBoss()
	await ensureQueue(boss, name)
	await boss.insert(
		name,
		jobs.map((job) => ({
			data: jobPayloads[name].parse(job.data) as object,
			...(job.startAfter ? { startAfter: job.startAfter } : {}),
		})),
		{ db: options.db ? fromKysely(options.db) : undefined },
	)
}
