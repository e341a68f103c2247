import { sql } from 'kysely'
import type { Database } from '../../db/index.server.ts'

/**
 * Fixed-window counters in PostgreSQL (table auth_rate_limits), so every web process shares
 * them: one atomic upsert per hit. See docs/decisions/0003-auth-rate-limits.md.
 */
export type RateLimiter = {
	/** Counts a hit; false when this hit is over `limit` within the window. */
	hit(key: string, limit: number, now: Date): Promise<boolean>
	/** Hits counted in the current window and when the last one was, without counting one. */
	state(key: string, now: Date): Promise<{ hits: number; lastHitAt: Date | null }>
	reset(key: string): Promise<void>
}

export function createRateLimiter(db: Database, windowSeconds: number): RateLimiter {
	let hitsSinceSweep = 0
	const windowStartedBefore = (now: Date) => new Date(now.getTime() - windowSeconds * 1000)

	async function sweep(now: Date) {
		hitsSinceSweep = 0
		await db
			.deleteFrom('auth_rate_limits')
			.where('window_start', '<=', windowStartedBefore(now))
			.execute()
	}

	return {
		async hit(key, limit, now) {
			const expired = windowStartedBefore(now)
			const row = await db
				.insertInto('auth_rate_limits')
				.values({ key, hits: 1, window_start: now, last_hit_at: now })
				.onConflict((oc) =>
					oc.column('key').doUpdateSet({
						hits: sql`case when auth_rate_limits.window_start <= ${expired} then 1 else auth_rate_limits.hits + 1 end`,
						window_start: sql`case when auth_rate_limits.window_start <= ${expired} then ${now}::timestamptz else auth_rate_limits.window_start end`,
						last_hit_at: now,
					}),
				)
				.returning('hits')
				.executeTakeFirstOrThrow()
			if (++hitsSinceSweep >= 500) await sweep(now).catch(() => {})
			return row.hits <= limit
		},
		async state(key, now) {
			const row = await db
				.selectFrom('auth_rate_limits')
				.select(['hits', 'last_hit_at'])
				.where('key', '=', key)
				.where('window_start', '>', windowStartedBefore(now))
				.executeTakeFirst()
			return { hits: row?.hits ?? 0, lastHitAt: row?.last_hit_at ?? null }
		},
		async reset(key) {
			await db.deleteFrom('auth_rate_limits').where('key', '=', key).execute()
		},
	}
}
