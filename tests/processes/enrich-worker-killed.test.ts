import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { getCreditBalance } from '../../app/services/billing/credits.server.ts'
import { createEnrichment } from '../../app/services/enrichments/enrichments.server.ts'
import { startRun } from '../../app/services/enrichments/start-enrichment.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.ts'
import { insertCompanyList, insertLeadList, useEnrichmentSettings } from '../support/enrichment.ts'
import { accountWithCredits } from '../support/jobs.ts'
import { workerProcesses } from '../support/worker-process.ts'

// `npm run worker` (node worker.ts) runs a lead list's and a company list's enrichment runs and
// is killed with SIGKILL midway: no graceful stop, its jobs still marked active. The next worker
// takes the runs over once the jobs' heartbeat has lapsed; each run ends with every row written
// once and every credit accounted for, and the answers the killed worker had saved are kept,
// not asked for again.
const ROWS = 110
const CONCURRENCY = 5
const CALL_MS = 250
let openai: FakeOpenAI
const workers = workerProcesses()

beforeAll(async () => {
	// 250 ms a call, 5 at a time per run: about 5.5 s of calls per run
	openai = await startFakeOpenAI({ delayMs: CALL_MS })
	useEnrichmentSettings(openai)
	process.env.ENRICH_CONCURRENCY = String(CONCURRENCY)
})
afterAll(async () => {
	workers.killAll()
	await openai.close()
})

type Source = { runId: string; rows: 'enrichment_run_rows' | 'enrichment_company_rows' }

const saved = async ({ runId, rows }: Source) =>
	(
		await db
			.selectFrom(rows)
			.select((eb) => eb.fn.countAll<number>().as('n'))
			.where('run_id', '=', runId)
			.where('status', '=', 2)
			.executeTakeFirstOrThrow()
	).n

const runOf = (runId: string) =>
	db
		.selectFrom('enrichment_runs')
		.select('status')
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()

/** The calls that reached the fake for one run (answered or not), told apart by their prompts. */
const callsFor = (marker: string) =>
	openai.arrivals.filter((call) => call.prompt.includes(marker)).length

test('a worker killed mid-run: the next one finishes both runs, each row written, asked for and charged once', async () => {
	const me = await accountWithCredits(1000)
	const leadListId = await insertLeadList(me.accountId!, ROWS)
	const companyListId = await insertCompanyList(me.accountId!, ROWS)
	const opener = await createEnrichment(me, {
		name: 'Opener',
		prompt: 'Opener for {{first_name}} at {{company_name}}',
		outputColumn: 'opener',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	const pitch = await createEnrichment(me, {
		name: 'Pitch',
		prompt: 'Pitch for {{name}} ({{domain}})',
		outputColumn: 'pitch',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	openai.reset()
	const leads: Source = {
		rows: 'enrichment_run_rows',
		...(await startRun(me, {
			listId: leadListId,
			source: 'leads',
			target: `enrichment:${opener.id}`,
			payWith: 'credits',
		})),
	}
	const companies: Source = {
		rows: 'enrichment_company_rows',
		...(await startRun(me, {
			listId: companyListId,
			source: 'companies',
			target: `enrichment:${pitch.id}`,
			payWith: 'credits',
		})),
	}
	expect(await getCreditBalance(me.accountId!)).toBe(1000 - 2 * ROWS)

	const first = workers.start()
	await first.ready
	// Answers are saved every 100 rows or every 2 s: both runs have saved some, well before
	// their 100th call, so a kill loses at most about 2 s of answers.
	for (const [run, marker] of [
		[leads, 'Opener for'],
		[companies, 'Pitch for'],
	] as const) {
		await expect.poll(() => saved(run), { timeout: 30_000, interval: 20 }).toBeGreaterThan(0)
		expect(callsFor(marker)).toBeLessThan(100)
	}
	first.child.kill('SIGKILL')
	await new Promise((resolve) => first.child.once('exit', resolve))
	const savedAtKill = { leads: await saved(leads), companies: await saved(companies) }
	const callsAtKill = { leads: callsFor('Opener for'), companies: callsFor('Pitch for') }
	expect(savedAtKill.leads).toBeLessThan(ROWS)
	expect(savedAtKill.companies).toBeLessThan(ROWS)

	const second = workers.start()
	await second.ready
	// the killed worker's jobs come back once their heartbeat lapsed and the retry delay passed
	for (const { runId } of [leads, companies]) {
		await expect
			.poll(async () => (await runOf(runId)).status, { timeout: 90_000, interval: 250 })
			.toBe(2)
	}
	second.child.kill('SIGTERM')

	// the next worker asked only for rows not saved before the kill (fewer when an answer had
	// reached the answer cache but not its row)
	expect(callsFor('Opener for') - callsAtKill.leads).toBeLessThanOrEqual(ROWS - savedAtKill.leads)
	expect(callsFor('Pitch for') - callsAtKill.companies).toBeLessThanOrEqual(
		ROWS - savedAtKill.companies,
	)
	expect(await saved(leads)).toBe(ROWS)
	expect(await saved(companies)).toBe(ROWS)
	const answered = await db
		.selectFrom('leads')
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.where('list_id', '=', leadListId)
		.where(({ fn, val }) => fn('jsonb_exists', ['data', val('opener')]), '=', true)
		.unionAll(
			db
				.selectFrom('companies')
				.select((eb) => eb.fn.countAll<number>().as('n'))
				.where('list_id', '=', companyListId)
				.where(({ fn, val }) => fn('jsonb_exists', ['data', val('pitch')]), '=', true),
		)
		.execute()
	expect(answered.map((row) => Number(row.n))).toEqual([ROWS, ROWS])
	// one credit per row answered by a call, none for a row answered from the cache (an answer
	// the killed worker had cached but not yet saved): nothing charged twice, the holds released
	const called = await db
		.selectFrom('enrichment_run_rows')
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.where('run_id', '=', leads.runId)
		.where('cached', '=', 0)
		.unionAll(
			db
				.selectFrom('enrichment_company_rows')
				.select((eb) => eb.fn.countAll<number>().as('n'))
				.where('run_id', '=', companies.runId)
				.where('cached', '=', 0),
		)
		.execute()
	const charged = called.reduce((sum, row) => sum + Number(row.n), 0)
	// a row answered from the cache can only be one the killed worker had asked for and not saved
	const askedNotSaved =
		callsAtKill.leads - savedAtKill.leads + (callsAtKill.companies - savedAtKill.companies)
	expect(charged).toBeGreaterThanOrEqual(2 * ROWS - askedNotSaved)
	expect(charged).toBeLessThanOrEqual(2 * ROWS)
	expect(await getCreditBalance(me.accountId!)).toBe(1000 - charged)
}, 180_000)
