import { sql, type Kysely } from 'kysely'
import { db as defaultDb, runAsJob } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { enqueueMany } from '../../jobs/enqueue.server.ts'
import { logger } from '../../utils/logger.server.ts'

const BATCH = 500

/**
 * The outbox's relay: takes committed, undispatched events (SKIP LOCKED, so several workers
 * share the work), makes one delivery row per subscribed endpoint and one pg-boss job per
 * delivery, and marks the events dispatched, all in one transaction: a crash anywhere leaves
 * the events undispatched for the next pass, and the unique (endpoint, event) keeps a second
 * pass from making a second delivery. Returns how many events it took.
 */
export async function dispatchEvents(executor: Kysely<DB> = defaultDb, limit = BATCH) {
	const { taken } = await dispatchPass(executor, limit)
	return taken
}

/** One pass of the relay: how many events it took and how many delivery jobs it queued. */
async function dispatchPass(executor: Kysely<DB>, limit: number) {
	return executor.transaction().execute(async (trx) => {
		const { rows: events } = await sql<{ id: string }>`
			select id from webhook_events where dispatched_at is null
			order by seq limit ${limit} for update skip locked`.execute(trx)
		if (events.length === 0) return { taken: 0, queued: 0 }
		const ids = events.map((e) => e.id)
		const { rows: deliveries } = await sql<{ id: number }>`
			insert into webhook_deliveries (endpoint_id, event_id, next_attempt_at)
			select e.id, ev.id, now()
			from webhook_events ev
			join webhook_endpoints e on e.account_id = ev.account_id and e.status = 'enabled'
			where ev.id = any(${ids}::uuid[])
				and case when ev.endpoint_id is not null then ev.endpoint_id = e.id
					else ev.type = any(e.events)
						and (cardinality(e.workspace_ids) = 0 or ev.workspace_id = any(e.workspace_ids))
					end
			order by ev.seq
			on conflict on constraint webhook_deliveries_once do nothing
			returning id`.execute(trx)
		await enqueueMany(
			'webhook-delivery',
			deliveries.map((d) => ({ data: { deliveryId: Number(d.id), attempt: 0 } })),
			{ db: trx },
		)
		await sql`update webhook_events set dispatched_at = now() where id = any(${ids}::uuid[])`.execute(
			trx,
		)
		return { taken: events.length, queued: deliveries.length }
	})
}

export type Dispatcher = { stop(): Promise<void> }

/**
 * Runs the relay in this (worker) process: a pass every `intervalMs` while idle, at once again
 * after a full batch. A failed pass (the database restarting) is logged and tried again.
 * `onQueued` runs after a pass committed delivery jobs (the worker wakes their queue with it).
 */
export function startWebhookDispatcher(
	options: { intervalMs?: number; onQueued?: () => void } = {},
): Dispatcher {
	const intervalMs = options.intervalMs ?? 200
	let stopped = false
	let wake: (() => void) | null = null
	const pause = (ms: number) =>
		new Promise<void>((resolve) => {
			const timer = setTimeout(resolve, ms)
			wake = () => {
				clearTimeout(timer)
				resolve()
			}
		})
	const loop = async () => {
		let failures = 0
		while (!stopped) {
			let taken = 0
			try {
				const pass = await runAsJob(() => dispatchPass(defaultDb, BATCH))
				taken = pass.taken
				failures = 0
				if (pass.queued > 0) options.onQueued?.()
			} catch (error) {
				failures++
				if (failures === 1 || failures % 50 === 0)
					logger.warn({ err: error }, 'webhook dispatch failed; trying again')
			}
			if (stopped) break
			if (taken < BATCH)
				await pause(failures ? Math.min(5000, intervalMs * 2 ** failures) : intervalMs)
		}
	}
	const done = loop()
	return {
		async stop() {
			stopped = true
			wake?.()
			await done
		},
	}
}
