import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { sleep } from '../../utils/patience.server.ts'

/** Names a provider key in provider_rate_slots: a hash of its base URL and the whole key. */
export function providerKeyId(provider: { baseUrl: string; apiKey: string }) {
	return createHash('sha256').update(`${provider.baseUrl}\n${provider.apiKey}`).digest('hex')
}

/**
 * Waits for the next free call slot of a provider key, shared by every process on this
 * database (decision 0016): slots are 1/perSecond apart; one statement takes the next one and
 * moves it on, atomically, and answers how long to wait. No lock is held while waiting.
 */
export async function takeSlot(keyId: string, perSecond: number, signal: AbortSignal) {
	const spacingMs = 1000 / perSecond
	const spacing = sql`(${spacingMs}::float8 * interval '1 millisecond')`
	const { rows } = await sql<{ wait_ms: number }>`
		insert into provider_rate_slots as s (key_hash, next_at)
		values (${keyId}, clock_timestamp() + ${spacing})
		on conflict (key_hash) do update set next_at = greatest(s.next_at, clock_timestamp()) + ${spacing}
		returning extract(epoch from s.next_at - ${spacing} - clock_timestamp())::float8 * 1000 as wait_ms`.execute(
		db,
	)
	const wait = rows[0]!.wait_ms
	if (wait > 0) await sleep(Math.ceil(wait), signal)
}
