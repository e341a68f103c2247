import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeApollo, type FakeApollo } from '../../../tests/fakes/apollo/server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import {
	insertLeadList,
	settledRun,
	useEnrichmentSettings,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { saveApiKey } from '../api-keys/api-keys.server.ts'
import { createChain } from './enrichments.server.ts'
import { startRun } from './start-enrichment.server.ts'

// A chain's company-domain step against the Apollo fake (issue 39 point 5): an Apollo error
// is an error, not "no domain".
let openai: FakeOpenAI
let apollo: FakeApollo
let workers: Workers
beforeAll(async () => {
	openai = await startFakeOpenAI()
	apollo = await startFakeApollo()
	useEnrichmentSettings(openai)
	process.env.APOLLO_BASE_URL = apollo.url
	// a spent window is asked again this soon here (minute, hour, day)
	process.env.APOLLO_WINDOW_WAIT_SECONDS = '1,3,3'
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await openai.close()
	await apollo.close()
})

test("a company-domain step whose Apollo key's plan is refused stops the run with the reason", async () => {
	apollo.setInaccessible(true)
	const me = await accountWithCredits(100)
	await saveApiKey(me, { provider: 'apollo', key: apollo.apiKey })
	const listId = await insertLeadList(me.accountId!, 3, { company: (i) => `Company ${i} Inc` })
	const chain = await createChain(me, {
		name: 'Domains',
		steps: [{ kind: 'company-domain', outputColumn: 'domain' }],
	})
	const { runId } = await startRun(me, { listId, target: `chain:${chain.id}`, payWith: 'credits' })
	await settledRun(runId)
	const run = await db
		.selectFrom('enrichment_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
	expect(run.status).toBe(3)
	expect(JSON.stringify(run)).toContain("the key's plan")
	apollo.setInaccessible(false)
})

// A spent hourly window failed every row with "We wait for it and go on" (the step waited 3 x
// 15 minutes inside the job first): the run now waits in the queue, its rows pending.
test('a spent Apollo window pauses the run until it ends; no row fails for it', async () => {
	const me = await accountWithCredits(100)
	await saveApiKey(me, { provider: 'apollo', key: apollo.apiKey })
	const listId = await insertLeadList(me.accountId!, 4, { company: (i) => `Company ${i} Inc` })
	const chain = await createChain(me, {
		name: 'Domains later',
		steps: [{ kind: 'company-domain', outputColumn: 'domain' }],
	})
	apollo.exhaustWindow('hour', 6_000)
	const { runId } = await startRun(me, { listId, target: `chain:${chain.id}`, payWith: 'credits' })
	const note = async () =>
		(
			await db
				.selectFrom('enrichment_runs')
				.select(['status', 'error'])
				.where('id', '=', runId)
				.executeTakeFirstOrThrow()
		).error ?? ''
	await expect
		.poll(note, { timeout: 20_000, interval: 100 })
		.toMatch(/hourly request limit for this key is used up: the work waits until/)
	const run = await settledRun(runId)
	expect(run).toMatchObject({ status: 2, error: null })
	const rows = await db
		.selectFrom('enrichment_run_rows')
		.select(['status', 'error'])
		.where('run_id', '=', runId)
		.execute()
	expect(rows).toHaveLength(4)
	expect(rows.every((r) => r.status === 2 && r.error === null)).toBe(true)
}, 60_000)
