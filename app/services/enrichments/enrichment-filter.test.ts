import { beforeEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import {
	insertLeadList,
	settledRun,
	fakeOpenAIAndWorkers,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import type { AccountContext } from '../../context.server.ts'
import { statusOf } from '../../utils/http-errors.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { createEnrichment } from './enrichments.server.ts'
import { runRowsTuning } from './run-enrichment.server.ts'
import { parseResultsQuery } from './results-query.ts'
import { RunSchema } from './schemas.ts'
import { estimateRun, runResults, startRun } from './start-enrichment.server.ts'

// Runs on a filtered part of a list, end to end: the real worker and database against the
// local OpenAI fake.
const fake = fakeOpenAIAndWorkers()
beforeEach(() => fake.openai.reset())

/** Title "MALFORMED" where asked: the fake answers those with broken JSON. */
const leadList = (me: AccountContext, count: number, malformed: number[] = []) =>
	insertLeadList(me.accountId!, count, {
		title: (i) => (malformed.includes(i) ? 'MALFORMED' : 'CEO'),
	})

const summary = {
	name: 'Summary',
	prompt: 'Describe {{company_name}} for {{email}}',
	outputColumn: 'summary',
	outputFormat: 'text' as const,
	model: 'gpt-4o-mini',
	temperature: 0,
}

/** The emails of the list's leads that have a value in `column`, sorted. */
async function enrichedEmails(listId: string, column: string) {
	const leads = await db
		.selectFrom('leads')
		.select(['email', 'data'])
		.where('list_id', '=', listId)
		.execute()
	return leads
		.filter((l) => (l.data as Record<string, unknown>)[column] !== undefined)
		.map((l) => l.email)
		.sort()
}

const where = (column: string, op: string, value?: string) => ({ column, op, value }) as never

describe('a run on a filtered part of a list', () => {
	test('takes only the leads the search and conditions match, and costs only those', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 20)
		const e = await createEnrichment(me, summary)
		// "person1" matches person1 and person10-19; a company domain only the even ones
		const filter = { q: 'person1', where: [where('company_domain', 'not-empty')] }
		const input = { listId, target: `enrichment:${e.id}`, payWith: 'credits' as const, filter }
		await expect(estimateRun(me, input)).resolves.toMatchObject({
			rows: 5,
			calls: 5,
			credits: 5,
			filter: ['search “person1”', 'company_domain is not empty'],
		})

		const { runId, estimate } = await startRun(me, input)
		expect(estimate.rows).toBe(5)
		// the hold is for those 5 rows only
		expect(await getCreditBalance(me.accountId!)).toBe(95)
		const run = await settledRun(runId)
		expect(run).toMatchObject({ status: 2, total: 5, credits_reserved: 5 })
		expect(run.filter).toEqual({
			q: 'person1',
			where: [{ column: 'company_domain', op: 'not-empty' }],
			only: 'all',
		})
		const expected = [10, 12, 14, 16, 18].map((i) => `person${i}@example.com`)
		expect(await enrichedEmails(listId, 'summary')).toEqual(expected)
		expect(fake.openai.calls.sort()).toEqual(
			expected.map((m) => `Describe Company ${m.match(/\d+/)![0]} for ${m}`).sort(),
		)
		expect(await getCreditBalance(me.accountId!)).toBe(95)

		// equals and contains are case-insensitive and trimmed, like a chain's conditions
		await expect(
			estimateRun(me, {
				...input,
				filter: { where: [where('email', 'equals', ' PERSON3@example.com ')] },
			}),
		).resolves.toMatchObject({ rows: 1 })
		await expect(
			estimateRun(me, {
				...input,
				filter: { where: [where('full_name', 'contains', 'ST1 ')] },
			}),
		).resolves.toMatchObject({ rows: 11 })
		await expect(
			estimateRun(me, { ...input, filter: { where: [where('company_domain', 'empty')] } }),
		).resolves.toMatchObject({ rows: 10 })

		// "output column empty" leaves out the 5 leads already enriched
		fake.openai.reset()
		const rest = await startRun(me, { ...input, filter: { only: 'empty-output' } })
		expect(rest.estimate).toMatchObject({ rows: 15, credits: 15 })
		expect((await settledRun(rest.runId)).status).toBe(2)
		expect(fake.openai.calls).toHaveLength(15)
		expect(await enrichedEmails(listId, 'summary')).toHaveLength(20)
		expect(await getCreditBalance(me.accountId!)).toBe(80)
		// a condition on an output column, now that every lead has one
		await expect(
			estimateRun(me, { ...input, filter: { where: [where('summary', 'contains', 'company 1')] } }),
		).resolves.toMatchObject({ rows: 11 })
	})

	test('the worker writes the rows in batches: exactly the leads counted, whole list and filtered', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 23)
		const e = await createEnrichment(me, summary)
		runRowsTuning.batchRows = 4
		try {
			const whole = await startRun(me, { listId, target: `enrichment:${e.id}`, payWith: 'credits' })
			expect(whole.estimate.rows).toBe(23)
			expect(await settledRun(whole.runId)).toMatchObject({ status: 2, total: 23 })
			expect(await enrichedEmails(listId, 'summary')).toHaveLength(23)
			expect(fake.openai.calls).toHaveLength(23)
			expect(new Set(fake.openai.calls).size).toBe(23)

			// "person1" takes person1 and person10-19
			fake.openai.reset()
			const filtered = await startRun(me, {
				listId,
				target: `enrichment:${e.id}`,
				payWith: 'credits',
				filter: { q: 'person1', where: [where('summary', 'not-empty')] },
			})
			expect(filtered.estimate.rows).toBe(11)
			expect(await settledRun(filtered.runId)).toMatchObject({ status: 2, total: 11 })
			const rows = await db
				.selectFrom('enrichment_run_rows as r')
				.innerJoin('leads as l', 'l.id', 'r.lead_id')
				.select(['l.email', 'r.status'])
				.where('r.run_id', '=', filtered.runId)
				.execute()
			expect(rows.map((r) => r.email).sort()).toEqual(
				[1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((i) => `person${i}@example.com`).sort(),
			)
			expect(rows.every((r) => r.status === 2)).toBe(true)
			// every answer was cached by the first run
			expect(fake.openai.calls).toHaveLength(0)
			expect(await getCreditBalance(me.accountId!)).toBe(77)
		} finally {
			runRowsTuning.batchRows = 50_000
		}
	})

	test('"last run failed" takes the leads whose last run of the enrichment failed', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 8, [2, 5])
		const e = await createEnrichment(me, {
			...summary,
			name: 'Profile',
			prompt: 'Classify {{company_name}} {{title}}',
			outputColumn: 'profile',
			outputFormat: 'json',
			outputFields: 'industry:string',
		})
		const target = `enrichment:${e.id}`
		const input = {
			listId,
			target,
			payWith: 'credits' as const,
			filter: { only: 'failed' as const },
		}
		// no run yet: nothing has failed
		await expect(estimateRun(me, input)).rejects.toMatchObject({
			message: expect.stringContaining('No lead of this list matches these filters'),
		})
		const first = await startRun(me, { listId, target, payWith: 'credits' })
		expect((await settledRun(first.runId)).status).toBe(2)
		await expect(estimateRun(me, input)).resolves.toMatchObject({ rows: 2 })

		// fixed leads: a run of the failed ones enriches them, and then none has failed
		await db.updateTable('leads').set({ title: 'CEO' }).where('list_id', '=', listId).execute()
		fake.openai.reset()
		const retry = await startRun(me, input)
		expect(retry.estimate.rows).toBe(2)
		expect((await settledRun(retry.runId)).status).toBe(2)
		expect(fake.openai.calls).toHaveLength(2)
		expect(await enrichedEmails(listId, 'profile')).toHaveLength(8)
		await expect(estimateRun(me, input)).rejects.toMatchObject({
			message: expect.stringContaining('No lead'),
		})
	})

	test('bad filters are field errors, and a filter that matches nothing writes nothing', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 4)
		const e = await createEnrichment(me, summary)
		const input = { listId, target: `enrichment:${e.id}`, payWith: 'credits' as const }

		await expect(
			startRun(me, { ...input, filter: { where: [{}, where('nickname', 'empty')] } as never }),
		).rejects.toMatchObject({
			field: 'where[1].column',
			message: 'Unknown column: nickname. Choose a lead column or an output.',
		})
		const parsed = RunSchema.safeParse({
			intent: 'estimate',
			...input,
			where: [{ column: 'title', op: 'like' }, { column: 'title', op: 'equals' }, { op: 'empty' }],
		})
		expect(parsed.success).toBe(false)
		expect(parsed.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
			['where.0.op', 'Choose how to compare: is empty, is not empty, equals or contains.'],
			['where.1.value', 'Enter a value to compare with.'],
			['where.2.column', 'Choose a column.'],
		])

		await expect(startRun(me, { ...input, filter: { q: 'nobody' } })).rejects.toMatchObject({
			field: null,
			message: 'No lead of this list matches these filters: nothing to run. Loosen them.',
		})
		const runs = await db
			.selectFrom('enrichment_runs')
			.select('id')
			.where('list_id', '=', listId)
			.execute()
		expect(runs).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
		const holds = await db
			.selectFrom('credit_reservations')
			.select('id')
			.where('user_id', '=', me.accountId!)
			.execute()
		expect(holds).toHaveLength(0)
	})

	test("another account's list and run are not found", async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 2)
		const e = await createEnrichment(me, summary)
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		const stranger = await accountWithCredits(100)
		const theirs = await createEnrichment(stranger, summary)
		const caught = await estimateRun(stranger, {
			listId,
			target: `enrichment:${theirs.id}`,
			payWith: 'credits',
			filter: { q: 'person' },
		}).catch((error: unknown) => error)
		expect(statusOf(caught)).toBe(404)
		const results = await runResults('leads', stranger, listId, runId).catch(
			(error: unknown) => error,
		)
		expect(statusOf(results)).toBe(404)
	})
})

describe("a run's results", () => {
	test('page through every lead, by keyset, and by row status', async () => {
		const me = await accountWithCredits(200)
		const failing = [3, 60, 118]
		const listId = await leadList(me, 120, failing)
		const e = await createEnrichment(me, {
			...summary,
			prompt: 'Classify {{company_name}} {{title}}',
			outputColumn: 'profile',
			outputFormat: 'json',
			outputFields: 'industry:string',
		})
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		expect((await settledRun(runId)).status).toBe(2)

		const seen: string[] = []
		let search = new URLSearchParams()
		const pages: number[] = []
		for (;;) {
			const page = await runResults('leads', me, listId, runId, parseResultsQuery(search))
			pages.push(page.rows.length)
			seen.push(...page.rows.map((r) => r.id))
			if (!page.next) break
			search = new URLSearchParams({ page: String(page.next.page), after: page.next.after })
		}
		expect(pages).toEqual([50, 50, 20])
		expect(new Set(seen).size).toBe(120)
		expect(seen).toEqual([...seen].sort())

		// back from the last page
		const last = await runResults('leads', me, listId, runId, parseResultsQuery(search))
		expect(last.previous).toMatchObject({ page: 2 })
		const back = await runResults(
			'leads',
			me,
			listId,
			runId,
			parseResultsQuery(
				new URLSearchParams({ page: String(last.previous!.page), before: last.previous!.before! }),
			),
		)
		expect(back.rows.map((r) => r.id)).toEqual(seen.slice(50, 100))
		expect(back.firstIndex).toBe(51)

		const failed = await runResults(
			'leads',
			me,
			listId,
			runId,
			parseResultsQuery(new URLSearchParams({ status: 'failed' })),
		)
		expect(failed.rows.map((r) => r.email).sort()).toEqual(
			failing.map((i) => `person${i}@example.com`).sort(),
		)
		expect(failed.rows.every((r) => r.status === 3 && r.error)).toBe(true)
		expect(failed.next).toBeNull()
		const done = await runResults(
			'leads',
			me,
			listId,
			runId,
			parseResultsQuery(new URLSearchParams({ status: 'done', page: '3' })),
		)
		// 117 done: the third page (by offset, without a cursor) holds 17
		expect(done.rows).toHaveLength(17)
		expect(done.rows.every((r) => r.status === 2)).toBe(true)
	})
})
