import type pg from 'pg'
import { expect, test } from 'vitest'
import { db, getPool, runAsJob } from './index.server.ts'

// The shutdown closes every pool the process opened before the database stops: a connection
// left open (pools keep idle ones for minutes) would be cut by the stopping database.
test('closing the database closes the web pool and a job pool its Kysely never used', async () => {
	const webPool = getPool()
	const jobPool = runAsJob(() => getPool())
	expect(jobPool).not.toBe(webPool)
	// each connection's end, as the server sees it go
	const ended: Promise<void>[] = []
	let open = 0
	for (const pool of [webPool, jobPool]) {
		pool.on('connect', (client: pg.PoolClient) => {
			open++
			ended.push(new Promise((resolve) => client.once('end', () => resolve(void open--))))
		})
	}
	await db.selectNoFrom((eb) => eb.val(1).as('one')).execute()
	runAsJob(() => {
		// the job scope's Kysely exists but never runs a statement; only the raw pool does
		void db.selectNoFrom((eb) => eb.val(1).as('one')).compile()
	})
	await jobPool.query('select 1')
	expect([webPool.totalCount, jobPool.totalCount, open]).toEqual([1, 1, 2])

	await db.destroy()
	expect([webPool.ending, jobPool.ending]).toEqual([true, true])
	// closed when destroy() returns, not after: the database may be stopped next
	expect(open).toBe(0)
	await Promise.all(ended)
})
