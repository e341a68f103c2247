import { getEventListeners } from 'node:events'
import { expect, test } from 'vitest'
import { sleep } from './patience.server.ts'

// A job sleeps on its one signal for every rate-limit slot (the verify job: once an email). A
// sleep that ended must leave nothing on the signal: 100,000 listeners left behind made each
// new one slower to add and the worker's CPU per email grow with the run (decision 0106).
test('a sleep that ended leaves no listener on the signal; an abort still ends one early', async () => {
	const job = new AbortController()
	for (let i = 0; i < 200; i++) await sleep(0, job.signal)
	expect(getEventListeners(job.signal, 'abort')).toHaveLength(0)

	const started = performance.now()
	const waiting = sleep(60_000, job.signal)
	job.abort()
	await waiting
	expect(performance.now() - started).toBeLessThan(1000)
	expect(getEventListeners(job.signal, 'abort')).toHaveLength(0)
})
