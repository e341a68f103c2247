import { afterAll, expect, test } from 'vitest'
import { z } from 'zod'
import { db } from '../../db/index.server.ts'
import { defineJob } from './define.server.ts'
import { enqueue } from './enqueue.server.ts'
import { jobPayloads, type JobName } from './payloads.ts'
import { jobDefinitions } from './registry.server.ts'
import { startWorkers } from './worker.server.ts'

// A queued job wakes the workers of its kind when its transaction commits (decision 0051):
// here the workers look for jobs only once a minute on their own, so a job that runs within
// 20 s was announced, not found by a poll.
const done: string[] = []
const note = defineJob({
	name: 'test-wake-up',
	schema: z.object({ word: z.string() }),
	async handler({ word }) {
		done.push(word)
	},
})
jobDefinitions.push(note)
Object.assign(jobPayloads, { 'test-wake-up': note.schema })
const enqueueNote = (word: string, options?: Parameters<typeof enqueue>[2]) =>
	enqueue('test-wake-up' as JobName, { word } as never, options)

const workers = await startWorkers({ concurrency: 1, drainSeconds: 2, pollSeconds: 60 })
afterAll(() => workers.stop())

test('a job queued in a transaction wakes an idle worker when it commits', async () => {
	// the worker's own first look at the queue, and whatever it starts with, are behind it
	await enqueueNote('first')
	await expect.poll(() => done.includes('first'), { timeout: 20_000 }).toBe(true)

	await db.transaction().execute(async (trx) => {
		await enqueueNote('second', { db: trx })
	})
	await expect.poll(() => done.includes('second'), { timeout: 20_000 }).toBe(true)
})
