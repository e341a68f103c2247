import { sql } from 'kysely'
import { afterAll, expect, test } from 'vitest'
import { z } from 'zod'
import { db } from '../../db/index.server.ts'
import { defineJob } from './define.server.ts'
import { enqueue } from './enqueue.server.ts'
import { jobPayloads, type JobName } from './payloads.ts'
import { jobDefinitions } from './registry.server.ts'
import { startWorkers } from './worker.server.ts'

const seen: string[] = []
let failuresLeft = 1
const echo = defineJob({
	name: 'test-echo',
	schema: z.object({ word: z.string() }),
	retryDelaySeconds: 1,
	async handler({ word }, { retryCount }) {
		if (word === 'flaky' && failuresLeft-- > 0) throw new Error('first attempt fails')
		seen.push(`${word}:${retryCount}`)
	},
})
jobDefinitions.push(echo)
// queued by name like every kind: its payload schema joins the real ones for this test
Object.assign(jobPayloads, { 'test-echo': echo.schema })
const enqueueEcho = (data: { word: unknown }, options?: Parameters<typeof enqueue>[2]) =>
	enqueue('test-echo' as JobName, data as never, options)

const workers = await startWorkers({ concurrency: 2, drainSeconds: 5 })
afterAll(() => workers.stop())

async function jobsNamed(name: string) {
	const { rows } = await sql<{
		state: string
	}>`select state from pgboss.job where name = ${name}`.execute(db)
	return rows
}

test('a job queued with its status row runs in the worker', async () => {
	await enqueueEcho({ word: 'hello' })
	await expect.poll(() => seen.includes('hello:0'), { timeout: 10_000 }).toBe(true)
})

test('a job queued in a transaction that rolls back never exists', async () => {
	await db
		.transaction()
		.execute(async (trx) => {
			await enqueueEcho({ word: 'ghost' }, { db: trx })
			throw new Error('roll back')
		})
		.catch(() => {})
	await enqueueEcho({ word: 'after-ghost' })
	await expect.poll(() => seen.includes('after-ghost:0'), { timeout: 10_000 }).toBe(true)
	expect(seen.some((s) => s.startsWith('ghost'))).toBe(false)
})

test('a failed attempt is retried', async () => {
	await enqueueEcho({ word: 'flaky' })
	await expect
		.poll(() => seen.find((s) => s.startsWith('flaky')), { timeout: 20_000 })
		.toBe('flaky:1')
})

test('the payload is checked before anything is queued', async () => {
	const before = (await jobsNamed('test-echo')).length
	await expect(enqueueEcho({ word: 42 })).rejects.toThrow()
	expect((await jobsNamed('test-echo')).length).toBe(before)
})
