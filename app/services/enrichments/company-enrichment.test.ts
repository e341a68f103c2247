import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import {
	insertCompanyList,
	insertLeadList,
	useEnrichmentSettings,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import type { AccountContext } from '../../context.server.ts'
import { statusOf } from '../../utils/http-errors.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { getDashboard } from '../dashboard/get-dashboard.server.ts'
import { streamCompanyListCsv } from '../lists/export.server.ts'
import {
	createChain,
	createEnrichment,
	listsForPreview,
	previewEnrichment,
} from './enrichments.server.ts'
import { runEnrichment } from './run-enrichment.server.ts'
import {
	cancelRun,
	runResults,
	estimateRun,
	listRuns,
	retryFailedRows,
	startRun,
} from './start-enrichment.server.ts'

// Company lists run the enrich job as lead lists do (decision 0039): no workers here, the
// test drives the job's handler by hand, stops it mid-run and runs it again.
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
	openai.setDelay(0)
})

const pitch = (me: AccountContext, overrides: Record<string, unknown> = {}) =>
	createEnrichment(me, {
		name: 'Pitch',
		prompt: 'Pitch {{name}} ({{domain}}) in {{industry}} with {{employees}} people',
		outputColumn: 'pitch',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
		...overrides,
	})

const companyRows = (runId: string) =>
	db
		.selectFrom('enrichment_company_rows as r')
		.innerJoin('companies as c', 'c.id', 'r.company_id')
		.select(['r.status', 'r.calls', 'r.cached', 'c.name', 'c.data'])
		.where('r.run_id', '=', runId)
		.orderBy('c.name')
		.execute()

const runRow = (runId: string) =>
	db.selectFrom('enrichment_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow()

const job = (retryCount = 0, signal = new AbortController().signal) => ({
	jobId: 'job',
	retryCount,
	signal,
})

const statusOfCall = (promise: Promise<unknown>) => promise.then(() => 200, statusOf)

describe('enriching a company list', () => {
	test('a run writes each company once, survives a stop mid-run, and refunds what it did not use', async () => {
		const me = await accountWithCredits(1000)
		const listId = await insertCompanyList(me.accountId!, 60)
		const e = await pitch(me)
		const input = {
			listId,
			source: 'companies' as const,
			target: `enrichment:${e.id}`,
			payWith: 'credits' as const,
		}
		expect(await estimateRun(me, input)).toMatchObject({ rows: 60, calls: 60, credits: 60 })
		const { runId } = await startRun(me, input)
		const started = await runRow(runId)
		expect(started).toMatchObject({ company_list_id: listId, list_id: null, total: 60 })
		// the hold is taken with the run
		expect(await getCreditBalance(me.accountId!)).toBe(940)

		openai.setDelay(30)
		const stop = new AbortController()
		const watch = setInterval(() => {
			if (openai.calls.length >= 10) stop.abort()
		}, 5)
		await expect(runEnrichment(runId, job(0, stop.signal))).rejects.toThrow('worker stopping')
		clearInterval(watch)
		const halfway = (await companyRows(runId)).filter((r) => r.status === 2).length
		expect(halfway).toBeGreaterThan(0)
		expect(halfway).toBeLessThan(60)

		openai.setDelay(0)
		await runEnrichment(runId, job(1))
		expect((await runRow(runId)).status).toBe(2)
		const rows = await companyRows(runId)
		expect(rows).toHaveLength(60)
		expect(rows.every((r) => r.status === 2 && r.calls === 1)).toBe(true)
		// the prompt was rendered from the company's own columns, and the answer is its column
		const first = rows.find((r) => r.name === 'Company 0')!
		expect(String((first.data as Record<string, string>).pitch)).toContain(
			'Pitch Company 0 (company0.com) in software with 10 people',
		)
		expect(openai.calls).toHaveLength(60)
		expect(new Set(openai.calls).size).toBe(60)
		expect(await getCreditBalance(me.accountId!)).toBe(940)

		const [summary] = await listRuns(me, listId, 'companies')
		expect(summary).toMatchObject({ id: runId, done: 60, failed: 0, calls: 60, total: 60 })
		const page = await runResults('companies', me, listId, runId)
		expect(page.rows).toHaveLength(50)
		expect(page.rows[0]!.data.pitch).toBeTruthy()
		expect(page.next).not.toBeNull()
		const rest = await runResults('companies', me, listId, runId, {
			status: 'done',
			page: 2,
			after: page.next!.after,
		})
		expect(rest.rows).toHaveLength(10)
		// the download has the answers as a column
		const csv = await new Response((await streamCompanyListCsv(me, listId)).stream).text()
		const [header, ...lines] = csv
			.replace(/^\uFEFF/, '')
			.trim()
			.split('\n')
		expect(header!.split(',')).toContain('pitch')
		expect(lines.find((l) => l.startsWith('Company 0,'))).toContain(
			'Pitch Company 0 (company0.com) in software with 10 people',
		)

		// the same prompts again are answered from the cache: no call, all credits back
		openai.reset()
		const again = await startRun(me, input)
		expect(await getCreditBalance(me.accountId!)).toBe(880)
		await runEnrichment(again.runId, job())
		expect(openai.calls).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(940)
		expect((await companyRows(again.runId)).every((r) => r.cached === 1 && r.calls === 0)).toBe(
			true,
		)
	})

	test('conditions on company columns and the search pick the companies a run takes', async () => {
		const me = await accountWithCredits(1000)
		const listId = await insertCompanyList(me.accountId!, 12)
		const e = await pitch(me)
		const base = {
			listId,
			source: 'companies' as const,
			target: `enrichment:${e.id}`,
			payWith: 'credits' as const,
		}
		const software = {
			...base,
			filter: { where: [{ column: 'industry', op: 'equals' as const, value: 'Software' }] },
		}
		expect((await estimateRun(me, software)).rows).toBe(4)
		const { runId } = await startRun(me, software)
		await runEnrichment(runId, job())
		const rows = await companyRows(runId)
		expect(rows.map((r) => r.name)).toEqual(['Company 0', 'Company 3', 'Company 6', 'Company 9'])
		// the companies enriched before: only those whose output is still empty are left
		expect(
			(await estimateRun(me, { ...base, filter: { only: 'empty-output' as const } })).rows,
		).toBe(8)
		expect((await estimateRun(me, { ...base, filter: { q: 'https://www.company1' } })).rows).toBe(3)
		await expect(
			estimateRun(me, {
				...base,
				filter: { where: [{ column: 'first_name', op: 'empty' as const }] },
			}),
		).rejects.toMatchObject({ field: 'where[0].column' })
		await expect(
			estimateRun(me, {
				...base,
				filter: { where: [{ column: 'industry', op: 'equals' as const, value: 'mining' }] },
			}),
		).rejects.toThrow('No company of this list matches these filters')

		// a chain step that runs only if a company column holds
		const chain = await createChain(me, {
			name: 'Retail pitch',
			steps: [
				{
					kind: 'ai',
					enrichmentId: e.id,
					conditionColumn: 'industry',
					conditionOp: 'equals',
					conditionValue: 'retail',
				},
			],
		})
		openai.reset()
		const chained = await startRun(me, { ...base, target: `chain:${chain.id}` })
		await runEnrichment(chained.runId, job())
		const pitched = (await companyRows(chained.runId)).filter(
			(r) => (r.data as Record<string, unknown>).pitch,
		)
		expect(pitched.map((r) => r.name).sort()).toEqual([
			'Company 0',
			'Company 1',
			'Company 10',
			'Company 3',
			'Company 4',
			'Company 6',
			'Company 7',
			'Company 9',
		])
		expect(openai.calls).toHaveLength(4)
	})

	test('a prompt that reads lead columns, or a chain with a built-in step, is refused on a company list', async () => {
		const me = await accountWithCredits(1000)
		const listId = await insertCompanyList(me.accountId!, 3)
		const leadPrompt = await pitch(me, {
			name: 'Greeting',
			prompt: 'Greet {{first_name}}',
			outputColumn: 'greeting',
		})
		const input = {
			listId,
			source: 'companies' as const,
			payWith: 'credits' as const,
		}
		await expect(
			startRun(me, { ...input, target: `enrichment:${leadPrompt.id}` }),
		).rejects.toMatchObject({ field: 'target', message: expect.stringContaining('{{first_name}}') })
		const chain = await createChain(me, {
			name: 'Domains',
			steps: [{ kind: 'company-domain' }],
		})
		await expect(startRun(me, { ...input, target: `chain:${chain.id}` })).rejects.toMatchObject({
			field: 'target',
			message: expect.stringContaining('lead lists only'),
		})
		// nothing was started, nothing held
		expect(await listRuns(me, listId, 'companies')).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(1000)
	})

	test('a preview runs the prompt on 5 companies of the list, free, and knows company columns only', async () => {
		const me = await accountWithCredits(100)
		const listId = await insertCompanyList(me.accountId!, 8)
		const input = {
			name: 'Pitch',
			prompt: 'Pitch {{name}} ({{domain}}) in {{industry}}',
			outputColumn: 'pitch',
			outputFormat: 'text' as const,
			model: 'gpt-4o-mini',
			temperature: 0,
		}
		expect(await listsForPreview(me)).toContainEqual({
			id: listId,
			name: 'Companies',
			found: 8,
			kind: 'companies',
		})
		const preview = await previewEnrichment(me, { ...input, listId })
		expect(preview.kind).toBe('companies')
		// the first five the list page shows, by name (company ids are random)
		expect(preview.rows.map((row) => row.label)).toEqual(
			[0, 1, 2, 3, 4].map((i) => `Company ${i} (company${i}.com)`),
		)
		expect(preview.rows[0]!.output).toMatch(
			/^AI\(gpt-4o-mini\): Pitch Company \d+ \(company\d+\.com\) in /,
		)
		expect(openai.calls).toHaveLength(5)
		// nothing written, nothing charged
		expect(await getCreditBalance(me.accountId!)).toBe(100)
		const written = await db
			.selectFrom('companies')
			.select('data')
			.where('list_id', '=', listId)
			.execute()
		expect(written.every((c) => !('pitch' in (c.data as object)))).toBe(true)
		await expect(
			previewEnrichment(me, { ...input, prompt: 'Greet {{first_name}}', listId }),
		).rejects.toMatchObject({ field: 'prompt', message: 'Unknown column: {{first_name}}.' })
		// once a run has the answers, a preview reads them from the cache and calls nothing
		const saved = await createEnrichment(me, input)
		const { runId } = await startRun(me, {
			listId,
			source: 'companies',
			target: `enrichment:${saved.id}`,
			payWith: 'credits',
		})
		await runEnrichment(runId, job())
		openai.reset()
		const again = await previewEnrichment(me, { ...input, listId })
		expect(again.rows.map((r) => r.cached)).toEqual([true, true, true, true, true])
		expect(again.rows.map((r) => r.output)).toEqual(preview.rows.map((r) => r.output))
		expect(openai.calls).toHaveLength(0)
		const other = await accountWithCredits(100)
		expect(await statusOfCall(previewEnrichment(other, { ...input, listId }))).toBe(404)
		expect(await listsForPreview(other)).not.toContainEqual(expect.objectContaining({ id: listId }))
	})

	test('cancelling and retrying a company run settle its credits by its own rows', async () => {
		const me = await accountWithCredits(1000)
		const listId = await insertCompanyList(me.accountId!, 30)
		const e = await pitch(me)
		const { runId } = await startRun(me, {
			listId,
			source: 'companies',
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		openai.setDelay(30)
		const stop = new AbortController()
		const watch = setInterval(() => {
			if (openai.calls.length >= 5) stop.abort()
		}, 5)
		await expect(runEnrichment(runId, job(0, stop.signal))).rejects.toThrow('worker stopping')
		clearInterval(watch)
		await cancelRun(me, runId)
		const done = (await companyRows(runId)).filter((r) => r.status === 2).length
		expect(done).toBeGreaterThan(0)
		expect(done).toBeLessThan(30)
		// the calls made are paid for, the rest of the hold is back
		expect(await getCreditBalance(me.accountId!)).toBe(1000 - done)
		// the rows the cancelled run did not finish are those that "failed last time"
		const again = {
			listId,
			source: 'companies' as const,
			target: `enrichment:${e.id}`,
			payWith: 'credits' as const,
		}
		expect((await estimateRun(me, { ...again, filter: { only: 'failed' as const } })).rows).toBe(
			30 - done,
		)

		const { rows } = await retryFailedRows(me, runId)
		expect(rows).toBe(30 - done)
		openai.setDelay(0)
		await runEnrichment(runId, job())
		expect((await runRow(runId)).status).toBe(2)
		expect((await companyRows(runId)).every((r) => r.status === 2)).toBe(true)
		expect(openai.calls).toHaveLength(30)
		expect(await getCreditBalance(me.accountId!)).toBe(970)
		// the dashboard links the run to its company list's enrich page
		const { jobs } = await getDashboard(me, null)
		expect(jobs.find((j) => j.id === runId)).toMatchObject({
			kind: 'company-enrichment',
			href: `/company-lists/${listId}/enrich`,
			progress: 100,
		})
	})
})

describe('another account', () => {
	test("gets a 404 for a company list's enrich page, its runs and its results", async () => {
		const owner = await accountWithCredits(100)
		const other = await accountWithCredits(100)
		const listId = await insertCompanyList(owner.accountId!, 2)
		const e = await pitch(owner)
		const { runId } = await startRun(owner, {
			listId,
			source: 'companies',
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		const theirs = await pitch(other)
		const input = {
			listId,
			source: 'companies' as const,
			target: `enrichment:${theirs.id}`,
			payWith: 'credits' as const,
		}
		expect(await statusOfCall(startRun(other, input))).toBe(404)
		expect(await statusOfCall(estimateRun(other, input))).toBe(404)
		expect(await statusOfCall(listRuns(other, listId, 'companies'))).toBe(404)
		expect(await statusOfCall(runResults('companies', other, listId, runId))).toBe(404)
		expect(await statusOfCall(cancelRun(other, runId))).toBe(404)
		expect(await statusOfCall(retryFailedRows(other, runId))).toBe(404)
		// a lead list's id is not a company list, nor the other way round
		const leadListId = await insertLeadList(owner.accountId!, 1)
		expect(await statusOfCall(listRuns(owner, leadListId, 'companies'))).toBe(404)
		expect(await statusOfCall(listRuns(owner, listId))).toBe(404)
		expect(await statusOfCall(runResults('companies', owner, leadListId, runId))).toBe(404)
		expect((await runRow(runId)).status).toBe(0)
	})
})
