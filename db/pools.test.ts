import { expect, test } from 'vitest'
import { db, getPool, runAsJob } from './index.server.ts'

// The shutdown closes every pool the process opened before the database stops: a pool left
// open keeps its idle connections (for minutes), which the stopping database then cuts.
test('closing the database closes the web pool and a job pool its Kysely never used', async () => {
	await db.selectNoFrom((eb) => eb.val(1).as('one')).execute()
	const jobPool = runAsJob(() => {
		// the job scope's Kysely exists but never runs a statement; only the raw pool does
		void db.selectNoFrom((eb) => eb.val(1).as('one')).compile()
		return getPool()
	})
	await jobPool.query('select 1')
	const webPool = getPool()
	expect(jobPool).not.toBe(webPool)
	expect([jobPool.totalCount, webPool.totalCount]).toEqual([1, 1])

	await db.destroy()
	expect([jobPool.ending, webPool.ending]).toEqual([true, true])
	expect([jobPool.totalCount, webPool.totalCount]).toEqual([0, 0])
})
