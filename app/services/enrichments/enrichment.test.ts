import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import {
	insertLeadList,
	settledRun,
	useEnrichmentSettings,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import type { AccountContext } from '../../context.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { FormError, statusOf } from '../../utils/http-errors.server.ts'
import { saveApiKey, testApiKey } from '../api-keys/api-keys.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import {
	createChain,
	createEnrichment,
	findEnrichment,
	listChains,
	previewEnrichment,
	updateChain,
	updateEnrichment,
} from './enrichments.server.ts'
import { EnrichmentFormSchema } from './schemas.ts'
import { estimateRun, retryFailedRows, startRun } from './start-enrichment.server.ts'

// The enrich job end to end: the real worker and database against the local OpenAI fake.
let openai: FakeOpenAI
let workers: Workers
beforeAll(async () => {
	openai = await startFakeOpenAI()
	useEnrichmentSettings(openai)
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await openai.close()
})
beforeEach(() => {
	openai.reset()
	openai.setDelay(0)
})

const leadList = (me: AccountContext, count: number) =>
	insertLeadList(me.accountId!, count, { company: (i) => `Company ${i} Inc` })

const enrichmentInput = (overrides: Record<string, unknown> = {}) => ({
	name: 'Summary',
	prompt: 'Describe {{company_name}} for {{first_name}}',
	outputColumn: 'summary',
	outputFormat: 'text' as const,
	model: 'gpt-4o-mini',
	temperature: 0,
	...overrides,
})

const rowsOf = (runId: string) =>
	db
		.selectFrom('enrichment_run_rows as r')
		.innerJoin('leads as l', 'l.id', 'r.lead_id')
		.select(['r.status', 'r.error', 'r.calls', 'l.data', 'l.first_name'])
		.where('r.run_id', '=', runId)
		.orderBy('l.id')
		.execute()

describe('AI enrichments: bad input', () => {
	test('an empty prompt and a bad JSON field list are field errors', () => {
		const form = new FormData()
		for (const [k, v] of Object.entries({
			intent: 'create-enrichment',
			name: 'X',
			prompt: '',
			outputColumn: 'x',
			outputFormat: 'json',
			outputFields: 'industry:colour',
			model: 'gpt-4o-mini',
		}))
			form.set(k, v)
		const parsed = EnrichmentFormSchema.safeParse(Object.fromEntries(form))
		expect(parsed.success).toBe(false)
		const paths = parsed.error!.issues.map((i) => i.path.join('.'))
		expect(paths).toContain('prompt')
		expect(paths).toContain('outputFields')
	})

	test('unknown placeholders and an output column that already exists are refused', async () => {
		const me = await accountWithCredits()
		await expect(
			createEnrichment(me, enrichmentInput({ prompt: 'Hi {{nickname}} at {{company_name}}' })),
		).rejects.toMatchObject({ field: 'prompt', message: expect.stringContaining('{{nickname}}') })
		await expect(
			createEnrichment(me, enrichmentInput({ outputColumn: 'email' })),
		).rejects.toMatchObject({
			field: 'outputColumn',
			message: expect.stringContaining('already a column'),
		})
		await createEnrichment(me, enrichmentInput())
		await expect(createEnrichment(me, enrichmentInput({ name: 'Again' }))).rejects.toBeInstanceOf(
			FormError,
		)
		// an earlier output may be used by a later enrichment
		await expect(
			createEnrichment(
				me,
				enrichmentInput({ name: 'Later', prompt: 'Shorten {{summary}}', outputColumn: 'short' }),
			),
		).resolves.toMatchObject({ name: 'Later' })
	})

	test('a key that fails its test says so; a good one is marked tested', async () => {
		const me = await accountWithCredits()
		await saveApiKey(me, { provider: 'openai', key: 'sk-wrong-key-123456', baseUrl: openai.url })
		await expect(testApiKey(me, 'openai')).rejects.toThrow(
			/The test failed: .*refused this API key/,
		)
		await saveApiKey(me, { provider: 'openai', key: openai.apiKey, baseUrl: openai.url })
		await expect(testApiKey(me, 'openai')).resolves.toMatch(/offers 2 models/)
		const row = await db
			.selectFrom('api_keys')
			.selectAll()
			.where('user_id', '=', me.accountId!)
			.executeTakeFirstOrThrow()
		expect(row.verified_at).not.toBeNull()
		expect(row.last4).toBe(openai.apiKey.slice(-4))
		expect(row.encrypted_key).not.toContain(openai.apiKey.slice(0, 10))
	})

	test('a model the provider rejects fails the run with a clear error and refunds', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 5)
		const e = await createEnrichment(me, enrichmentInput({ model: 'gpt-nonexistent' }))
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		expect(await getCreditBalance(me.accountId!)).toBe(95)
		const run = await settledRun(runId)
		expect(run.status).toBe(3)
		expect(run.error).toMatch(/does not offer the model “gpt-nonexistent”/)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	})
})

describe('running an enrichment', () => {
	test('results land in leads.data, credits are used per call, and a re-run calls nothing', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 12)
		const e = await createEnrichment(me, enrichmentInput())
		const preview = await previewEnrichment(me, { ...enrichmentInput(), listId })
		expect(preview.kind).toBe('leads')
		expect(preview.rows).toHaveLength(5)
		expect(preview.rows[0]!.label).toMatch(/^person\d+@example\.com$/)
		expect(preview.rows[0]!.output).toMatch(
			/^AI\(gpt-4o-mini\): Describe Company \d+ Inc for First\d+$/,
		)
		openai.reset()

		const first = await startRun(me, { listId, target: `enrichment:${e.id}`, payWith: 'credits' })
		expect(first.estimate).toMatchObject({ rows: 12, calls: 12, credits: 12 })
		expect((await settledRun(first.runId)).status).toBe(2)
		const rows = await rowsOf(first.runId)
		expect(rows.every((r) => r.status === 2)).toBe(true)
		expect((rows[0]!.data as Record<string, string>).summary).toMatch(
			/^AI\(gpt-4o-mini\): Describe/,
		)
		expect(openai.calls).toHaveLength(12)
		expect(await getCreditBalance(me.accountId!)).toBe(88)

		openai.reset()
		const again = await startRun(me, { listId, target: `enrichment:${e.id}`, payWith: 'credits' })
		expect((await settledRun(again.runId)).status).toBe(2)
		expect(openai.calls).toHaveLength(0)
		expect(await getCreditBalance(me.accountId!)).toBe(88)
	})

	test('the estimate of a re-run charges only the answers not cached yet', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 10)
		const e = await createEnrichment(me, enrichmentInput({ outputColumn: 'summary_again' }))
		const target = `enrichment:${e.id}`
		const before = await estimateRun(me, { listId, target, payWith: 'credits' })
		expect(before).toMatchObject({ rows: 10, credits: 10, charged: 10, cached: 0 })
		const first = await startRun(me, { listId, target, payWith: 'credits' })
		expect((await settledRun(first.runId)).status).toBe(2)

		// every answer is cached: the re-run costs nothing, and the estimate says so
		const again = await estimateRun(me, { listId, target, payWith: 'credits' })
		expect(again).toMatchObject({ rows: 10, charged: 0, cached: 10 })
		// three new leads: only they are paid for
		await db
			.insertInto('leads')
			.values(
				[1, 2, 3].map((i) => ({
					list_id: listId,
					user_id: me.accountId!,
					email: `new${i}@example.com`,
					first_name: `New${i}`,
					company_name: `Newco ${i}`,
				})),
			)
			.execute()
		expect(await estimateRun(me, { listId, target, payWith: 'credits' })).toMatchObject({
			rows: 13,
			charged: 3,
			cached: 10,
		})
	})

	test('429 with Retry-After and 500s are retried; JSON output is checked; malformed rows can be retried', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 6)
		const e = await createEnrichment(
			me,
			enrichmentInput({
				prompt: 'Classify {{company_name}} {{title}}',
				outputColumn: 'profile',
				outputFormat: 'json',
				outputFields: 'industry:string, size:number',
			}),
		)
		openai.rateLimitNext(2, 1)
		openai.failNext(2)
		const started = Date.now()
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		expect((await settledRun(runId)).status).toBe(2)
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
		const rows = await rowsOf(runId)
		expect(rows.every((r) => r.status === 2)).toBe(true)
		expect((rows[0]!.data as Record<string, { size: number }>).profile!.size).toBeGreaterThan(0)
		expect(openai.requests.filter((r) => r.endsWith(' 429'))).toHaveLength(2)
		expect(await getCreditBalance(me.accountId!)).toBe(94)

		// a malformed answer fails its row only; retrying runs only that row
		await db
			.updateTable('leads')
			.set({ title: 'MALFORMED' })
			.where('list_id', '=', listId)
			.where('first_name', '=', 'First0')
			.execute()
		const second = await startRun(me, { listId, target: `enrichment:${e.id}`, payWith: 'credits' })
		const run = await settledRun(second.runId)
		expect(run.status).toBe(2)
		const failed = (await rowsOf(second.runId)).filter((r) => r.status === 3)
		expect(failed).toHaveLength(1)
		expect(failed[0]!.error).toBe('The model did not answer valid JSON.')
		await db.updateTable('leads').set({ title: 'CEO' }).where('list_id', '=', listId).execute()
		openai.reset()
		await expect(retryFailedRows(me, second.runId)).resolves.toEqual({ rows: 1 })
		expect((await settledRun(second.runId)).status).toBe(2)
		expect(openai.calls).toHaveLength(0) // the unchanged prompt is in the cache
		expect((await rowsOf(second.runId)).every((r) => r.status === 2)).toBe(true)
	})

	test("a chain's waterfall runs steps in order and stops at the first non-empty result", async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 4)
		const empty = await createEnrichment(
			me,
			enrichmentInput({ name: 'Nothing', prompt: 'EMPTY {{email}}', outputColumn: 'contact' }),
		)
		const opener = await createEnrichment(
			me,
			enrichmentInput({
				name: 'Opener',
				prompt: 'Opener for {{first_name}}',
				outputColumn: 'opener',
			}),
		)
		const chain = await createChain(me, {
			name: 'Waterfall',
			steps: [
				{ kind: 'ai', enrichmentId: empty.id },
				// only where the company domain is known (rows 0 and 2)
				{
					kind: 'email-guess',
					outputColumn: 'contact',
					conditionColumn: 'company_domain',
					conditionOp: 'not-empty',
				},
				{ kind: 'company-domain', outputColumn: 'contact' },
				{ kind: 'ai', enrichmentId: opener.id },
				{ kind: 'email-guess', outputColumn: 'opener' },
			],
		})
		const { runId } = await startRun(me, {
			listId,
			target: `chain:${chain.id}`,
			payWith: 'credits',
		})
		expect((await settledRun(runId)).status).toBe(2)
		const rows = await rowsOf(runId)
		const contact = rows.map((r) => (r.data as Record<string, string>).contact)
		expect(contact).toEqual([
			'first0.last0@company0.com',
			'company1.com',
			'first2.last2@company2.com',
			'company3.com',
		])
		const openers = rows.map((r) => (r.data as Record<string, string>).opener)
		expect(openers.every((o) => o!.startsWith('AI(gpt-4o-mini): Opener for First'))).toBe(true)
		// 4 rows x 2 AI steps; the email guess after "opener" never ran
		expect(openai.calls).toHaveLength(8)
		expect(openai.calls.filter((c) => c.startsWith('EMPTY'))).toHaveLength(4)
		expect(await getCreditBalance(me.accountId!)).toBe(92)
	})
})

describe('editing enrichments and chains', () => {
	const row = (id: string) =>
		db.selectFrom('ai_enrichments').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

	test('an edit is checked like a new enrichment; bad input writes nothing', async () => {
		const me = await accountWithCredits()
		const summary = await createEnrichment(me, enrichmentInput())
		const later = await createEnrichment(
			me,
			enrichmentInput({ name: 'Later', prompt: 'Shorten {{summary}}', outputColumn: 'short' }),
		)
		const before = await row(summary.id)
		const refused = async (overrides: Record<string, unknown>, field: string, message: RegExp) => {
			const error = await updateEnrichment(
				me,
				summary.id,
				enrichmentInput({ name: 'Changed', ...overrides }),
			).catch((e: unknown) => e)
			expect(error).toBeInstanceOf(FormError)
			expect(error).toMatchObject({ field, message: expect.stringMatching(message) })
			expect(await row(summary.id)).toEqual(before)
		}
		await refused({ prompt: 'Hi {{nickname}}' }, 'prompt', /Unknown column: \{\{nickname\}\}/)
		await refused({ prompt: 'Again {{summary}}' }, 'prompt', /cannot use its own output column/)
		await refused({ outputColumn: 'short' }, 'outputColumn', /“short” is already a column/)
		await refused({ outputColumn: 'email' }, 'outputColumn', /already a column/)
		// "Later" reads {{summary}}: the column may not go away under it
		await refused({ outputColumn: 'blurb' }, 'outputColumn', /“Later” reads \{\{summary\}\}/)
		await refused(
			{ outputFormat: 'json', outputFields: 'industry:colour' },
			'outputFields',
			/string, number or boolean/,
		)

		// its own output column is no collision; the edit is saved
		await updateEnrichment(
			me,
			summary.id,
			enrichmentInput({
				name: 'Summary v2',
				prompt: 'Summarise {{company_name}} ({{title}})',
				outputFormat: 'json',
				outputFields: 'industry:string, size:number',
				temperature: 0.5,
			}),
		)
		const saved = await findEnrichment(me, summary.id)
		expect(saved).toMatchObject({
			name: 'Summary v2',
			prompt: 'Summarise {{company_name}} ({{title}})',
			outputColumn: 'summary',
			format: {
				kind: 'json',
				fields: [
					{ name: 'industry', type: 'string' },
					{ name: 'size', type: 'number' },
				],
			},
			temperature: 0.5,
		})
		// and "Later" may now be moved onto a JSON field's column
		await expect(
			updateEnrichment(
				me,
				later.id,
				enrichmentInput({
					name: 'Later',
					prompt: 'Shorten {{summary.industry}}',
					outputColumn: 'short',
				}),
			),
		).resolves.toMatchObject({ name: 'Later' })
		await expect(
			updateEnrichment(me, summary.id, enrichmentInput({ outputFormat: 'text' })),
		).rejects.toMatchObject({ field: 'outputFields', message: expect.stringContaining('“Later”') })
	})

	test("another account's enrichment or chain is not found", async () => {
		const me = await accountWithCredits()
		const other = await accountWithCredits()
		const theirs = await createEnrichment(other, enrichmentInput())
		const theirChain = await createChain(other, {
			name: 'Theirs',
			steps: [{ kind: 'ai', enrichmentId: theirs.id }],
		})
		const status = (promise: Promise<unknown>) => promise.then(() => 200, statusOf)
		expect(await status(updateEnrichment(me, theirs.id, enrichmentInput()))).toBe(404)
		expect(
			await status(
				updateChain(me, theirChain.id, { name: 'Mine', steps: [{ kind: 'email-guess' }] }),
			),
		).toBe(404)
		expect((await row(theirs.id)).name).toBe('Summary')
		expect((await listChains(other))[0]!.name).toBe('Theirs')
	})

	test("a chain's steps are reordered, changed and removed; bad steps write nothing", async () => {
		const me = await accountWithCredits()
		const e = await createEnrichment(me, enrichmentInput())
		const chain = await createChain(me, {
			name: 'Order',
			steps: [
				{ kind: 'ai', enrichmentId: e.id },
				{ kind: 'email-guess', conditionColumn: 'company_domain', conditionOp: 'not-empty' },
				{ kind: 'company-domain' },
			],
		})
		await expect(
			updateChain(me, chain.id, {
				name: 'Broken',
				steps: [{ kind: 'email-guess', conditionColumn: 'nickname', conditionOp: 'empty' }],
			}),
		).rejects.toMatchObject({ field: 'steps[0].conditionColumn' })
		await expect(
			updateChain(me, chain.id, { name: 'Empty', steps: [{ kind: '' }, { kind: '' }] }),
		).rejects.toMatchObject({ message: 'Add at least one step.' })
		expect((await listChains(me))[0]!.name).toBe('Order')
		expect((await listChains(me))[0]!.steps.map((s) => s.kind)).toEqual([
			'ai',
			'email-guess',
			'company-domain',
		])

		await updateChain(me, chain.id, {
			name: 'Reordered',
			steps: [
				{ kind: 'company-domain', outputColumn: 'domain_first' },
				{ kind: '' },
				{
					kind: 'ai',
					enrichmentId: e.id,
					conditionColumn: 'title',
					conditionOp: 'equals',
					conditionValue: 'CEO',
				},
			],
		})
		const [saved] = await listChains(me)
		expect(saved).toMatchObject({
			name: 'Reordered',
			steps: [
				{ kind: 'company-domain', outputColumn: 'domain_first', condition: null },
				{
					kind: 'ai',
					enrichmentId: e.id,
					condition: { column: 'title', op: 'equals', value: 'CEO' },
				},
			],
		})
		expect(saved!.steps).toHaveLength(2)
	})

	test('runs keep the snapshot they started with: editing changes neither their steps nor their results', async () => {
		const me = await accountWithCredits(100)
		const listId = await leadList(me, 10)
		const e = await createEnrichment(me, enrichmentInput())
		const chain = await createChain(me, {
			name: 'Snapshot',
			steps: [{ kind: 'ai', enrichmentId: e.id }, { kind: 'email-guess' }],
		})
		openai.setDelay(150)
		const { runId } = await startRun(me, {
			listId,
			target: `chain:${chain.id}`,
			payWith: 'credits',
		})
		const stepsOf = async () =>
			(
				await db
					.selectFrom('enrichment_runs')
					.select('steps')
					.where('id', '=', runId)
					.executeTakeFirstOrThrow()
			).steps
		const recorded = await stepsOf()
		// edit both while the run is calling the model
		await expect
			.poll(() => openai.calls.length, { timeout: 20_000, interval: 20 })
			.toBeGreaterThan(0)
		await updateEnrichment(
			me,
			e.id,
			enrichmentInput({ prompt: 'CHANGED {{company_name}}', model: 'gpt-4.1' }),
		)
		await updateChain(me, chain.id, {
			name: 'Snapshot',
			steps: [{ kind: 'email-guess' }, { kind: 'ai', enrichmentId: e.id }],
		})
		expect((await settledRun(runId)).status).toBe(2)
		expect(await stepsOf()).toEqual(recorded)
		expect(openai.calls).toHaveLength(10)
		expect(openai.calls.every((c) => c.startsWith('Describe Company'))).toBe(true)
		const rows = await rowsOf(runId)
		expect(
			rows.every((r) =>
				(r.data as Record<string, string>).summary!.startsWith('AI(gpt-4o-mini): Describe'),
			),
		).toBe(true)

		// a finished run keeps its record and its results too
		await updateEnrichment(me, e.id, enrichmentInput({ prompt: 'AGAIN {{company_name}}' }))
		expect(await stepsOf()).toEqual(recorded)
		expect(await rowsOf(runId)).toEqual(rows)
	})
})
