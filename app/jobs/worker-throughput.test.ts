import { sql } from 'kysely'
import { afterAll, expect, test } from 'vitest'
import { z } from 'zod'
import { db } from '../../db/index.server.ts'
import { defineJob } from './define.server.ts'
import { enqueueMany } from './enqueue.server.ts'
import { jobPayloads, type JobName } from './payloads.ts'
import { jobDefinitions } from './registry.server.ts'
import { startWorkers } from './worker.server.ts'

// Decision 0096: a queue's burst runs at the pace of its jobs, not of the poll. The old loop
// had each of a queue's workers take one job a second, so 60 jobs of 50 ms on 4 workers took
// 15 s; taken as slots free up they take under a second of work.
const CONCURRENCY = 4
const COUNT = 60
const runs: { word: string; retryCount: number; at: number }[] = []
let inFlight = 0
let mostInFlight = 0
let flakyFailures = 1
const burst = defineJob({
	name: 'test-burst',
	schema: z.object({ word: z.string() }),
	concurrency: CONCURRENCY,
	retryDelaySeconds: 1,
	async handler({ word }, { retryCount }) {
		inFlight++
		mostInFlight = Math.max(mostInFlight, inFlight)
		try {
			await new Promise((resolve) => setTimeout(resolve, 50))
			if (word === 'flaky' && flakyFailures-- > 0) throw new Error('first attempt fails')
			runs.push({ word, retryCount, at: Date.now() })
		} finally {
			inFlight--
		}
	},
})
jobDefinitions.push(burst)
Object.assign(jobPayloads, { 'test-burst': burst.schema })

const workers = await startWorkers({ concurrency: 1, drainSeconds: 5 })
afterAll(() => workers.stop())

test('a burst on one queue runs at its concurrency, each job settled on its own', async () => {
	const words = Array.from({ length: COUNT }, (_, i) => (i === 7 ? 'flaky' : `w${i}`))
	const started = Date.now()
	await enqueueMany(
		'test-burst' as JobName,
		words.map((word) => ({ data: { word } as never })),
	)
	const others = words.filter((w) => w !== 'flaky')
	await expect
		.poll(() => others.every((w) => runs.some((r) => r.word === w)), { timeout: 30_000 })
		.toBe(true)
	const seconds = (Math.max(...runs.map((r) => r.at)) - started) / 1000
	// 60 × 50 ms on 4 slots is under a second of work; one job a second per worker is 15 s
	expect(seconds).toBeLessThan(6)
	expect(mostInFlight).toBeLessThanOrEqual(CONCURRENCY)

	// the failing job is retried alone: its batch-mates ran once and are completed
	await expect
		.poll(() => runs.find((r) => r.word === 'flaky')?.retryCount, { timeout: 20_000 })
		.toBe(1)
	for (const w of others) expect(runs.filter((r) => r.word === w)).toHaveLength(1)
	await expect
		.poll(async () => {
			const { rows } = await sql<{ state: string; n: number }>`
				select state, count(*)::int as n from pgboss.job where name = 'test-burst' group by state`.execute(
				db,
			)
			return Object.fromEntries(rows.map((r) => [r.state, r.n]))
		})
		.toEqual({ completed: COUNT })
})
