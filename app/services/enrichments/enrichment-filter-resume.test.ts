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

// No workers here: the test drives the enrich job's handler by hand, stops it mid-run,
// adds leads the filter would match, and runs it again.
let openai: FakeOpenAI
beforeAll(async () => {
	openai = await startFakeOpenAI({ delayMs: 40 })
	useEnrichmentSettings(openai)
})
afterAll(async () => {
	await openai.close()
})

test('a filtered run resumed after a stop enriches the leads it started with, each once', async () => {
	const user = await insertUser(db)
	await grantCredits(db, { accountId: user.id, amount: 1000, reason: 'admin', reference: 'seed' })
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Resume', source_type: 'upload', status: 2, found: 80 })
		.returning('id')
		.executeTakeFirstOrThrow()
	const lead = (i: number, title: string) => ({
		list_id: list.id,
		user_id: user.id,
		email: `p${i}@example.com`,
		first_name: `First${i}`,
		company_name: `Company ${i}`,
		title,
	})
	// 60 founders among 80 leads
	await db
		.insertInto('leads')
		.values(Array.from({ length: 80 }, (_, i) => lead(i, i < 60 ? 'Founder' : 'Engineer')))
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
		filter: { where: [{ column: 'title', op: 'equals', value: 'founder' }] },
	})
	expect(await getCreditBalance(user.id)).toBe(940)

	const stop = new AbortController()
	const watch = setInterval(() => {
		if (openai.calls.length >= 10) stop.abort()
	}, 5)
	await expect(
		runEnrichment(runId, { jobId: 'job', retryCount: 0, signal: stop.signal }),
	).rejects.toThrow('worker stopping')
	clearInterval(watch)
	const halfway = await db
		.selectFrom('enrichment_run_rows')
		.select('status')
		.where('run_id', '=', runId)
		.where('status', '=', 2)
		.execute()
	expect(halfway.length).toBeGreaterThan(0)
	expect(halfway.length).toBeLessThan(60)

	// leads the filter would match now, added while the run was stopped, are not taken
	await db
		.insertInto('leads')
		.values(Array.from({ length: 10 }, (_, i) => lead(100 + i, 'Founder')))
		.execute()
	await runEnrichment(runId, { jobId: 'job', retryCount: 1, signal: new AbortController().signal })

	const run = await db
		.selectFrom('enrichment_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
	expect(run).toMatchObject({ status: 2, total: 60 })
	const leads = await db
		.selectFrom('leads')
		.select(['email', 'title', 'data'])
		.where('list_id', '=', list.id)
		.execute()
	const enriched = leads.filter((l) => (l.data as Record<string, unknown>).once !== undefined)
	expect(enriched).toHaveLength(60)
	expect(enriched.every((l) => Number(l.email.match(/\d+/)![0]) < 60)).toBe(true)
	expect(openai.calls).toHaveLength(60)
	expect(new Set(openai.calls).size).toBe(60)
	expect(openai.calls.some((c) => /p1\d\d@/.test(c))).toBe(false)
	expect(await getCreditBalance(user.id)).toBe(940)
})
