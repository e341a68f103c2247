import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { inBackground } from '../../utils/background.server.ts'
import { sleep } from '../../utils/patience.server.ts'

/** Names a provider key in provider_rate_slots: a hash of its base URL and the whole key. */
export function providerKeyId(provider: { baseUrl: string; apiKey: string }) {
	return createHash('sha256').update(`${provider.baseUrl}\n${provider.apiKey}`).digest('hex')
}

/**
 * Reserves the next `count` call slots of a key, shared by every process on this database:
 * one statement moves the key's next free slot on by `count` spacings, atomically, and answers
 * how long until the first reserved slot (ms, by the database's clock).
 */
async function reserveSlots(keyId: string, count: number, spacingMs: number) {
	const span = sql`(${count * spacingMs}::float8 * interval '1 millisecond')`
	const { rows } = await sql<{ wait_ms: number }>`
		insert into provider_rate_slots as s (key_hash, next_at)
		values (${keyId}, clock_timestamp() + ${span})
		on conflict (key_hash) do update set next_at = greatest(s.next_at, clock_timestamp()) + ${span}
		returning extract(epoch from s.next_at - ${span} - clock_timestamp())::float8 * 1000 as wait_ms`.execute(
		db,
	)
	return rows[0]!.wait_ms
}

type Waiter = { resolve: (waitMs: number) => void; reject: (error: unknown) => void }
// Callers of this process waiting for a slot, per key; one reservation in flight per key.
const queues = new Map<string, { waiting: Waiter[]; busy: boolean }>()

async function reserveForWaiting(keyId: string, spacingMs: number) {
	const queue = queues.get(keyId)!
	if (queue.busy || queue.waiting.length === 0) return
	queue.busy = true
	const batch = queue.waiting.splice(0)
	try {
		const first = await reserveSlots(keyId, batch.length, spacingMs)
		batch.forEach((waiter, i) => waiter.resolve(first + i * spacingMs))
	} catch (error) {
		for (const waiter of batch) waiter.reject(error)
	} finally {
		queue.busy = false
		inBackground(reserveForWaiting(keyId, spacingMs), 'reserving rate-limit slots failed')
	}
}

/**
 * Waits for this call's slot of a provider key (decision 0016): calls are 1/perSecond apart
 * across every process. The callers of this process that arrive while a reservation is in
 * flight share the next one (consecutive slots), so a busy job makes about one short
 * statement per round trip, not one per call, and no lock is held while anyone waits.
 */
export async function takeSlot(keyId: string, perSecond: number, signal: AbortSignal) {
	const spacingMs = 1000 / perSecond
	if (!queues.has(keyId)) queues.set(keyId, { waiting: [], busy: false })
	const wait = await new Promise<number>((resolve, reject) => {
		queues.get(keyId)!.waiting.push({ resolve, reject })
		inBackground(reserveForWaiting(keyId, spacingMs), 'reserving rate-limit slots failed')
	})
	if (wait > 0) await sleep(Math.ceil(wait), signal)
}
