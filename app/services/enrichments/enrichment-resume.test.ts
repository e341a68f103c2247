import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { useEnrichmentSettings } from '../../../tests/support/enrichment.ts'
import { loadAccountContext } from '../../context.server.ts'
import { getCreditBalance, grantCredits } from '../billing/credits.server.ts'
import { createEnrichment } from './enrichments.server.ts'
import { runEnrichment } from './run-enrichment.server.ts'
import { startRun } from './start-enrichment.server.ts'

// No workers here: the test drives the enrich job's handler by hand, stops it mid-run
// (as a worker that is shutting down or whose job expired) and runs it again.
let openai: FakeOpenAI
beforeAll(async () => {
	openai = await startFakeOpenAI({ delayMs: 40 })
	useEnrichmentSettings(openai)
})
afterAll(async () => {
	await openai.close()
})

test('stopping the job mid-run and running it again enriches every row exactly once', async () => {
	const user = await insertUser(db)
	await grantCredits(db, { accountId: user.id, amount: 1000, reason: 'admin', reference: 'seed' })
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Resume', source_type: 'upload', status: 2, found: 60 })
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('leads')
		.values(
			Array.from({ length: 60 }, (_, i) => ({
				list_id: list.id,
				user_id: user.id,
				email: `p${i}@example.com`,
				first_name: `First${i}`,
				company_name: `Company ${i}`,
			})),
		)
		.execute()
	const e = await createEnrichment(me, {
		name: 'Once',
		prompt: 'About {{company_name}} and {{email}}',
		outputColumn: 'once',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	const { runId } = await startRun(me, {
		listId: list.id,
		target: `enrichment:${e.id}`,
		payWith: 'credits',
	})
	const rows = () =>
		db
			.selectFrom('enrichment_run_rows as r')
			.innerJoin('leads as l', 'l.id', 'r.lead_id')
			.select(['r.status', 'r.calls', 'l.data'])
			.where('r.run_id', '=', runId)
			.execute()

	// stop once some answers are in (a busy machine may take a while to get going)
	const stop = new AbortController()
	const watch = setInterval(() => {
		if (openai.calls.length >= 10) stop.abort()
	}, 5)
	await expect(
		runEnrichment(runId, { jobId: 'job', retryCount: 0, signal: stop.signal }),
	).rejects.toThrow('worker stopping')
	clearInterval(watch)
	const halfway = (await rows()).filter((r) => r.status === 2).length
	expect(halfway).toBeGreaterThan(0)
	expect(halfway).toBeLessThan(60)

	await runEnrichment(runId, { jobId: 'job', retryCount: 1, signal: new AbortController().signal })
	const run = await db
		.selectFrom('enrichment_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
	expect(run.status).toBe(2)
	const done = await rows()
	expect(done.every((r) => r.status === 2 && r.calls === 1)).toBe(true)
	expect(done.every((r) => String((r.data as Record<string, string>).once).startsWith('AI('))).toBe(
		true,
	)
	// every row was sent to the model once: no call was lost or repeated
	expect(openai.calls).toHaveLength(60)
	expect(new Set(openai.calls).size).toBe(60)
	expect(await getCreditBalance(user.id)).toBe(940)
})
