import { sql } from 'kysely'
import { expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import {
	insertLeadList,
	settledRun,
	fakeOpenAIAndWorkers,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { getDashboard } from '../dashboard/get-dashboard.server.ts'
import { createEnrichment } from './enrichments.server.ts'
import { listRuns, retryFailedRows, startRun } from './start-enrichment.server.ts'

// The enrich page's counts and the dashboard's progress are kept on the run as its rows are
// written (migration 2026-11-25T0900): here they are checked against the rows themselves, on
// the real worker and database, through every way the rows change.
fakeOpenAIAndWorkers()

/** What the run's rows add up to, counted row by row. */
async function countedFromRows(runId: string) {
	const { rows } = await sql<{ done: number; failed: number; calls: number; cached: number }>`
		select count(*) filter (where status = 2)::int as done,
			count(*) filter (where status = 3)::int as failed,
			coalesce(sum(calls), 0)::int as calls, coalesce(sum(cached), 0)::int as cached
		from enrichment_run_rows where run_id = ${runId}`.execute(db)
	return rows[0]!
}

async function shownOnEnrichPage(
	me: Parameters<typeof listRuns>[0],
	listId: string,
	runId: string,
) {
	const run = (await listRuns(me, listId)).find((r) => r.id === runId)!
	return { done: run.done, failed: run.failed, calls: run.calls, cached: run.cached }
}

test("a run's counts are its rows' through failures, a retry, cache hits and a deleted lead", async () => {
	const me = await accountWithCredits(500)
	// the fake answers "MALFORMED" titles with broken JSON: those rows fail
	const malformed = [5, 17, 33]
	const listId = await insertLeadList(me.accountId!, 40, {
		title: (i) => (malformed.includes(i) ? 'MALFORMED' : 'CEO'),
	})
	const e = await createEnrichment(me, {
		name: 'Profile',
		prompt: 'Classify {{company_name}} {{title}}',
		outputColumn: 'profile',
		outputFormat: 'json',
		outputFields: 'industry:string',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	const input = { listId, target: `enrichment:${e.id}`, payWith: 'credits' as const }

	const first = (await startRun(me, input)).runId
	await settledRun(first)
	const afterRun = await shownOnEnrichPage(me, listId, first)
	expect(afterRun).toMatchObject({ done: 37, failed: 3, cached: 0 })
	expect(afterRun.calls).toBeGreaterThanOrEqual(37)
	expect(afterRun).toEqual(await countedFromRows(first))

	// the failed rows go back to pending with the retry, and then succeed
	await db
		.updateTable('leads')
		.set({ title: 'CEO' })
		.where('list_id', '=', listId)
		.where('title', '=', 'MALFORMED')
		.execute()
	expect(await retryFailedRows(me, first)).toEqual({ rows: 3 })
	expect(await shownOnEnrichPage(me, listId, first)).toEqual(await countedFromRows(first))
	expect((await shownOnEnrichPage(me, listId, first)).failed).toBe(0)
	await settledRun(first)
	const afterRetry = await shownOnEnrichPage(me, listId, first)
	expect(afterRetry).toMatchObject({ done: 40, failed: 0 })
	expect(afterRetry).toEqual(await countedFromRows(first))

	// the same enrichment again: every answer comes from the cache
	const second = (await startRun(me, input)).runId
	await settledRun(second)
	const cachedRun = await shownOnEnrichPage(me, listId, second)
	expect(cachedRun).toEqual({ done: 40, failed: 0, calls: 0, cached: 40 })
	expect(cachedRun).toEqual(await countedFromRows(second))

	// a lead deleted from the list leaves both runs' counts
	await db
		.deleteFrom('leads')
		.where('list_id', '=', listId)
		.where('email', '=', 'person0@example.com')
		.execute()
	expect((await shownOnEnrichPage(me, listId, first)).done).toBe(39)
	expect(await shownOnEnrichPage(me, listId, first)).toEqual(await countedFromRows(first))
	expect(await shownOnEnrichPage(me, listId, second)).toEqual(await countedFromRows(second))
})

test("the dashboard's progress of a running run follows its rows as they are written", async () => {
	const me = await accountWithCredits()
	const id = me.accountId!
	const listId = await insertLeadList(id, 10)
	const run = (
		await db
			.insertInto('enrichment_runs')
			.values({
				user_id: id,
				list_id: listId,
				name: 'Halfway',
				key_kind: 'ownKey',
				steps: JSON.stringify([]),
				status: 1,
				total: 10,
				prepared: true,
			})
			.returning('id')
			.executeTakeFirstOrThrow()
	).id
	// prepared as the run prepares them: all pending
	await sql`insert into enrichment_run_rows (run_id, lead_id)
		select ${run}, id from leads where list_id = ${listId}`.execute(db)
	const progress = async () =>
		(await getDashboard(me, null)).jobs.find((j) => j.id === run)!.progress
	expect(await progress()).toBe(0)
	// a batch written as the run writes them: done and failed rows count alike
	await sql`update enrichment_run_rows set status = case when lead_id = (
			select lead_id from enrichment_run_rows where run_id = ${run} order by lead_id limit 1) then 3 else 2 end
		where run_id = ${run} and lead_id in (
			select lead_id from enrichment_run_rows where run_id = ${run} order by lead_id limit 4)`.execute(db)
	expect(await progress()).toBe(40)
	// a row written again with the same status changes nothing
	await sql`update enrichment_run_rows set updated_at = now() where run_id = ${run}`.execute(db)
	expect(await progress()).toBe(40)
	expect(await countedFromRows(run)).toMatchObject({ done: 3, failed: 1 })
})

test('a run of tens of millions of rows shows its progress (no integer overflow)', async () => {
	const me = await accountWithCredits()
	const listId = await insertLeadList(me.accountId!, 1)
	const run = (
		await db
			.insertInto('enrichment_runs')
			.values({
				user_id: me.accountId!,
				list_id: listId,
				name: 'Huge',
				key_kind: 'ownKey',
				steps: JSON.stringify([]),
				status: 1,
				total: 30_000_000,
				prepared: true,
				rows_done: 25_000_000,
			})
			.returning('id')
			.executeTakeFirstOrThrow()
	).id
	const { jobs } = await getDashboard(me, null)
	expect(jobs.find((j) => j.id === run)!.progress).toBe(83)
})
