import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { logger } from '../utils/logger.server.ts'
import { BOSS_SCHEMA } from './boss.server.ts'
import type { JobDefinition } from './define.server.ts'
import type { JobName, JobPayload } from './payloads.ts'

/** How a job that pg-boss will never run again ended; `state` null: it is gone from the queue. */
export type EndedJob = {
	state: 'completed' | 'cancelled' | 'failed' | null
	message: string | null
}

/**
 * The queue's last job of this kind and payload, when none of them is queued or running any
 * more (else null: that one will settle the work itself). Read it in the transaction that holds
 * the status row's lock: a retry queues its job in the transaction that sets the row running
 * again, so once the lock is ours a new job is either visible here or not made yet.
 */
export async function endedJob<N extends JobName>(
	trx: Kysely<DB>,
	name: N,
	data: JobPayload<N>,
): Promise<EndedJob | null> {
	const { rows } = await sql<{ live: boolean; state: EndedJob['state']; message: string | null }>`
		select coalesce(bool_or(state < 'completed'), false) as live,
			(array_agg(state::text order by created_on desc))[1] as state,
			(array_agg(output #>> '{value,message}' order by created_on desc))[1] as message
		from ${sql.table(`${BOSS_SCHEMA}.job`)}
		where name = ${name} and data @> ${JSON.stringify(data)}::jsonb`.execute(trx)
	const row = rows[0]
	if (row?.live) return null
	return { state: row?.state ?? null, message: row?.message ?? null }
}

/** Why the work stopped, for its status row: what the user sees on the list or run. */
export function whyEnded(job: EndedJob) {
	if (job.state === 'failed' && job.message === 'job timed out')
		return 'It ran longer than its time limit and was stopped.'
	if (job.state === 'failed' && job.message === 'job heartbeat timeout')
		return 'The worker running it stopped answering too many times, so it was given up.'
	if (job.state === 'failed') return 'It failed too many times and was given up.'
	if (job.state === 'cancelled') return 'Its background job was cancelled.'
	if (job.state === 'completed') return 'Its background job ended before the work was done.'
	return 'Its background job was removed before the work was done.'
}

/**
 * A status row the sweep looks at has not changed for this long: a row written a moment ago
 * without its job (a test, a hand-run handler) is not taken for one whose job is gone.
 */
export const QUIET_SECONDS = 60

/**
 * The sweep (every minute): every kind's status rows still pending or
 * running whose job pg-boss will never run again are ended as failed and their unused credits
 * refunded, once (each kind's `settle.ended` locks its row and checks again). Returns how many.
 */
export async function settleEndedJobs(
	definitions: JobDefinition<any>[],
	options: { quietSeconds?: number } = {},
) {
	let settled = 0
	for (const job of definitions) {
		if (!job.settle) continue
		for (const data of await job.settle.unfinished(options.quietSeconds ?? QUIET_SECONDS)) {
			try {
				if (await job.settle.ended(data)) {
					settled += 1
					logger.warn({ job: job.name, data }, 'work of an ended job settled')
				}
			} catch (error) {
				// the next sweep tries again
				logger.warn({ job: job.name, data, err: error }, 'work of an ended job not settled')
			}
		}
	}
	return settled
}

/**
 * SQL: no job of this kind with this payload is queued or running, for a status row query
 * (`payload` builds the job's data from the row, e.g. jsonb_build_object('runId', r.id)).
 */
export function withoutLiveJob(name: JobName, payload: RawBuilder<unknown>) {
	return sql<boolean>`not exists (select 1 from ${sql.table(`${BOSS_SCHEMA}.job`)} j
		where j.name = ${name} and j.state < 'completed' and j.data @> ${payload})`
}

/** SQL: the status row's `updated_at` is at least `seconds` old. */
export function quietFor(column: string, seconds: number) {
	return sql<boolean>`${sql.ref(column)} <= now() - ${seconds} * interval '1 second'`
}
