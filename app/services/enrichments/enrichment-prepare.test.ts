import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import { insertLeadList, useEnrichmentSettings } from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import type { AccountContext } from '../../context.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { createEnrichment } from './enrichments.server.ts'
import { runEnrichment, runRowsHooks, runRowsTuning } from './run-enrichment.server.ts'
import { cancelRun, listRuns, retryFailedRows, startRun } from './start-enrichment.server.ts'

// Starting a run counts its leads and queues the job; the job writes the run's rows first, in
// batches, then enriches them. No workers here: the test drives the job's handler by hand,
// stops or kills it between and inside batches, and runs it again.
let openai: FakeOpenAI
beforeAll(async () => {
	openai = await startFakeOpenAI()
	useEnrichmentSettings(openai)
})
afterAll(async () => {
	await openai.close()
})
beforeEach(() => {
	openai.reset()
	runRowsTuning.batchRows = 7
})
afterEach(() => {
	runRowsTuning.batchRows = 50_000
	delete runRowsHooks.beforeCommit
	delete runRowsHooks.afterCommit
})

const job = (retryCount = 0, signal = new AbortController().signal) => ({
	jobId: 'job',
	retryCount,
	signal,
})

/** 40 leads; every third one is a founder (14 of them). */
async function setUp(credits = 1000) {
	const me = await accountWithCredits(credits)
	const listId = await insertLeadList(me.accountId!, 40, {
		title: (i) => (i % 3 === 0 ? 'Founder' : 'Engineer'),
	})
	const enrichment = (name: string) =>
		createEnrichment(me, {
			name,
			prompt: `${name} about {{company_name}} and {{email}}`,
			outputColumn: name.toLowerCase(),
			outputFormat: 'text',
			model: 'gpt-4o-mini',
			temperature: 0,
		})
	// two enrichments, so that one's answers are not the other's cache hits
	const [e, other] = [await enrichment('Once'), await enrichment('Other')]
	return { me, listId, target: `enrichment:${e.id}`, other: `enrichment:${other.id}` }
}

const founders = { where: [{ column: 'title', op: 'equals' as const, value: 'founder' }] }

/** More leads for the list, `title` each, created now (after any run started so far). */
async function addLeads(me: AccountContext, listId: string, from: number, title: string) {
	await db
		.insertInto('leads')
		.values(
			Array.from({ length: 5 }, (_, i) => ({
				list_id: listId,
				user_id: me.accountId!,
				email: `late${from + i}@example.com`,
				first_name: `Late${from + i}`,
				company_name: `Late ${from + i}`,
				title,
			})),
		)
		.execute()
}

const runRow = (runId: string) =>
	db.selectFrom('enrichment_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow()

/** The run's rows: each lead's email, how many rows it has in the run, and its status. */
const rowsOf = (runId: string) =>
	db
		.selectFrom('enrichment_run_rows as r')
		.innerJoin('leads as l', 'l.id', 'r.lead_id')
		.select(['l.email', 'l.title', 'r.status', 'r.calls'])
		.where('r.run_id', '=', runId)
		.orderBy('l.email')
		.execute()

async function expectEachEnrichedOnce(runId: string, emails: string[]) {
	const rows = await rowsOf(runId)
	expect(rows.map((r) => r.email).sort()).toEqual([...emails].sort())
	expect(rows.every((r) => r.status === 2 && r.calls === 1)).toBe(true)
	// every lead was sent to the model once: none lost, none twice
	expect(openai.calls).toHaveLength(emails.length)
	expect(new Set(openai.calls).size).toBe(emails.length)
	for (const email of emails) expect(openai.calls.some((c) => c.includes(`${email}`))).toBe(true)
}

const emails = (count: number, keep: (i: number) => boolean = () => true) =>
	Array.from({ length: count }, (_, i) => i)
		.filter(keep)
		.map((i) => `person${i}@example.com`)

describe('starting a run', () => {
	test('writes no rows; the job writes exactly the leads counted at start, later leads left out', async () => {
		const { me, listId, target, other } = await setUp()
		const whole = await startRun(me, { listId, target, payWith: 'credits' })
		expect(whole.estimate).toMatchObject({ rows: 40, credits: 40 })
		const filtered = await startRun(me, {
			listId,
			target: other,
			payWith: 'credits',
			filter: founders,
		})
		expect(filtered.estimate).toMatchObject({ rows: 14, credits: 14 })
		// the request wrote the runs, their holds and their jobs, and no row
		expect(await rowsOf(whole.runId)).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(1000 - 54)
		const runs = await listRuns(me, listId)
		expect(runs.map((r) => [r.total, r.preparing])).toEqual([
			[14, true],
			[40, true],
		])

		// leads added after the start, matching both runs, are not taken, even where leads
		// deleted meanwhile (a founder and an engineer) leave room under the count
		await addLeads(me, listId, 0, 'Founder')
		await db
			.deleteFrom('leads')
			.where('email', 'in', ['person0@example.com', 'person1@example.com'])
			.where('list_id', '=', listId)
			.execute()
		await runEnrichment(whole.runId, job())
		await expectEachEnrichedOnce(
			whole.runId,
			emails(40, (i) => i > 1),
		)
		openai.reset()
		await runEnrichment(filtered.runId, job())
		await expectEachEnrichedOnce(
			filtered.runId,
			emails(40, (i) => i > 1 && i % 3 === 0),
		)
		for (const runId of [whole.runId, filtered.runId]) {
			const run = await runRow(runId)
			expect(run).toMatchObject({ status: 2, prepared: true })
			expect(run.prepared_rows).toBe(run.total)
		}
		expect((await listRuns(me, listId)).map((r) => [r.total, r.preparing, r.done])).toEqual([
			[13, false, 13],
			[38, false, 38],
		])
		// the 3 leads deleted before their rows were written are refunded
		expect(await getCreditBalance(me.accountId!)).toBe(1000 - 51)
	})

	test('leads deleted before the job wrote their rows are left out and their credits come back', async () => {
		const { me, listId, target } = await setUp()
		const { runId } = await startRun(me, { listId, target, payWith: 'credits' })
		expect(await getCreditBalance(me.accountId!)).toBe(960)
		await db
			.deleteFrom('leads')
			.where('list_id', '=', listId)
			.where('email', 'in', ['person3@example.com', 'person20@example.com'])
			.execute()
		await runEnrichment(runId, job())
		expect(await runRow(runId)).toMatchObject({ status: 2, total: 38 })
		await expectEachEnrichedOnce(
			runId,
			emails(40, (i) => i !== 3 && i !== 20),
		)
		expect(await getCreditBalance(me.accountId!)).toBe(962)
	})

	test('never takes more leads than it counted and holds credits for', async () => {
		const { me, listId, target } = await setUp()
		const { runId } = await startRun(me, { listId, target, payWith: 'credits', filter: founders })
		// leads an import was committing as the run started: created before its cut-off
		await addLeads(me, listId, 0, 'Founder')
		await db
			.updateTable('leads')
			.set({ created_at: sql`created_at - interval '1 hour'` })
			.where('email', 'like', 'late%')
			.execute()
		await runEnrichment(runId, job())
		const run = await runRow(runId)
		expect(run).toMatchObject({ status: 2, total: 14 })
		expect(await rowsOf(runId)).toHaveLength(14)
		expect(openai.calls).toHaveLength(14)
		expect(await getCreditBalance(me.accountId!)).toBe(986)
	})
})

describe('a worker stopped or killed while it writes the rows', () => {
	test('a stop, a death inside a batch and one right after a checkpoint: each lead once', async () => {
		const { me, listId, target } = await setUp()
		const { runId } = await startRun(me, { listId, target, payWith: 'credits', filter: founders })
		// 14 founders, 3 rows a batch
		runRowsTuning.batchRows = 3

		// the worker is told to stop during the second batch: it finishes it and gives the job back
		const stop = new AbortController()
		runRowsHooks.beforeCommit = (_id, batch) => {
			if (batch === 2) stop.abort()
		}
		await expect(runEnrichment(runId, job(0, stop.signal))).rejects.toThrow('worker stopping')
		expect(await rowsOf(runId)).toHaveLength(6)
		expect(await runRow(runId)).toMatchObject({ prepared: false, prepared_rows: 6, total: 14 })
		expect((await listRuns(me, listId))[0]).toMatchObject({ preparing: true, total: 14 })

		// it dies inside its second batch: that batch is rolled back
		runRowsHooks.beforeCommit = (_id, batch) => {
			if (batch === 2) throw new Error('worker died')
		}
		await expect(runEnrichment(runId, job(1))).rejects.toThrow('worker died')
		expect(await rowsOf(runId)).toHaveLength(9)
		expect(await runRow(runId)).toMatchObject({ prepared: false, prepared_rows: 9 })

		// it dies right after its first checkpoint
		delete runRowsHooks.beforeCommit
		runRowsHooks.afterCommit = (_id, batch) => {
			if (batch === 1) throw new Error('worker died')
		}
		await expect(runEnrichment(runId, job(2))).rejects.toThrow('worker died')
		expect(await rowsOf(runId)).toHaveLength(12)
		expect(openai.calls).toHaveLength(0)

		delete runRowsHooks.afterCommit
		await addLeads(me, listId, 0, 'Founder')
		await runEnrichment(runId, job(3))
		expect(await runRow(runId)).toMatchObject({ status: 2, total: 14, prepared_rows: 14 })
		await expectEachEnrichedOnce(
			runId,
			emails(40, (i) => i % 3 === 0),
		)
		expect(await getCreditBalance(me.accountId!)).toBe(986)
	})
})

describe('cancelling a run whose rows are being written', () => {
	test('stops the job before its next batch; the rows written stay, all credits come back', async () => {
		const { me, listId, target } = await setUp()
		const { runId } = await startRun(me, { listId, target, payWith: 'credits' })
		expect(await getCreditBalance(me.accountId!)).toBe(960)
		runRowsHooks.afterCommit = async (_id, batch) => {
			// a person presses Cancel after the job wrote its second batch
			if (batch === 2) await cancelRun(me, runId)
		}
		await runEnrichment(runId, job())
		expect(await runRow(runId)).toMatchObject({
			status: 3,
			error: 'Cancelled',
			prepared: true,
			total: 14,
		})
		expect(await rowsOf(runId)).toHaveLength(14)
		expect(openai.calls).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(1000)
		expect((await listRuns(me, listId))[0]).toMatchObject({
			status: 3,
			preparing: false,
			total: 14,
			done: 0,
		})

		// "Retry failed rows" takes the rows the run has
		delete runRowsHooks.afterCommit
		expect(await retryFailedRows(me, runId)).toEqual({ rows: 14 })
		await runEnrichment(runId, job())
		expect(await runRow(runId)).toMatchObject({ status: 2, total: 14 })
		expect(openai.calls).toHaveLength(14)
		expect(await getCreditBalance(me.accountId!)).toBe(986)
	})

	test('a cancel that comes while a batch is written waits for it, and the job stops', async () => {
		const { me, listId, target } = await setUp()
		const { runId } = await startRun(me, { listId, target, payWith: 'credits' })
		let cancelled: Promise<unknown> | undefined
		runRowsHooks.beforeCommit = async (_id, batch) => {
			if (batch !== 2) return
			cancelled = cancelRun(me, runId)
			// commit once the cancel waits for this batch's lock on the run
			await expect
				.poll(
					async () => {
						const { rows } = await sql<{ n: number }>`
						select count(*)::int as n from pg_stat_activity
						where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
						return rows[0]!.n
					},
					{ timeout: 10_000 },
				)
				.toBe(1)
		}
		await runEnrichment(runId, job())
		await cancelled
		// the cancel has its turn right after the batch it waited for, however busy the machine
		// (it once lost its turn to every later batch, and the calls began): two batches written
		const run = await runRow(runId)
		expect(run).toMatchObject({ status: 3, error: 'Cancelled', prepared: true, total: 14 })
		expect(await rowsOf(runId)).toHaveLength(14)
		expect(run.prepared_rows).toBe(run.total)
		expect(openai.calls).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(1000)
	})

	test('cancelled before the job starts: no rows, nothing charged', async () => {
		const { me, listId, target } = await setUp()
		const { runId } = await startRun(me, { listId, target, payWith: 'credits' })
		await cancelRun(me, runId)
		await runEnrichment(runId, job())
		expect(await runRow(runId)).toMatchObject({ status: 3, total: 0, prepared: true })
		expect(await rowsOf(runId)).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(1000)
	})
})
