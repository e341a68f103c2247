import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { startFakeOpenAI, type FakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import {
	insertLeadList,
	settledRun,
	useEnrichmentSettings,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { createEnrichment, findEnrichment } from './enrichments.server.ts'
import { EnrichmentFormSchema } from './schemas.ts'
import { startRun } from './start-enrichment.server.ts'

// Issue 39 point 6, model providers as they behave. The temperature was always sent (the form filled in 0, the column was
// `not null default 0`), and gpt-5 and o-series models refuse any value but their default:
// every call on them was refused once. A temperature left empty is now sent as nothing.
let openai: FakeOpenAI
let workers: Workers
beforeAll(async () => {
	openai = await startFakeOpenAI({ models: ['gpt-4o-mini', 'gpt-5-mini', 'o4-mini'] })
	useEnrichmentSettings(openai)
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await openai.close()
})
beforeEach(() => openai.reset())

/** The enrichment form as a browser posts it, parsed as the action parses it. */
function submitted(fields: Record<string, string>) {
	const form = new FormData()
	for (const [name, value] of Object.entries({
		intent: 'create-enrichment',
		name: 'Angle',
		prompt: 'An opening line for {{first_name}} at {{company_name}}',
		outputColumn: 'angle',
		outputFormat: 'text',
		...fields,
	}))
		form.set(name, value)
	const submission = parseWithZod(form, { schema: EnrichmentFormSchema })
	if (submission.status !== 'success') throw new Error('the form was refused')
	return submission.value
}

async function runOn(model: string, temperature: string) {
	const me = await accountWithCredits(100)
	const listId = await insertLeadList(me.accountId!, 3)
	const e = await createEnrichment(me, { ...submitted({ model, temperature }), listId })
	const { runId } = await startRun(me, { listId, target: `enrichment:${e.id}`, payWith: 'credits' })
	return { run: await settledRun(runId), enrichment: await findEnrichment(me, e.id) }
}

test.each(['gpt-5-mini', 'o4-mini'])(
	'a temperature left empty is not sent: %s answers every call at once',
	async (model) => {
		const { run, enrichment } = await runOn(model, '')
		expect(enrichment.temperature).toBeNull()
		expect(run).toMatchObject({ status: 2, error: null })
		const chat = openai.requests.filter((r) => r.startsWith('POST /v1/chat/completions'))
		// no call refused: none carried a temperature
		expect(chat).toEqual(Array(3).fill('POST /v1/chat/completions 200'))
		expect(openai.arrivals.map((a) => a.temperature)).toEqual([undefined, undefined, undefined])
	},
)

test('a temperature the user set is sent as set', async () => {
	const { run, enrichment } = await runOn('gpt-4o-mini', '0.7')
	expect(enrichment.temperature).toBe(0.7)
	expect(run).toMatchObject({ status: 2 })
	expect(openai.arrivals.map((a) => a.temperature)).toEqual([0.7, 0.7, 0.7])
})

test('a temperature out of bounds is refused at the field', () => {
	const form = new FormData()
	for (const [name, value] of Object.entries({
		intent: 'create-enrichment',
		name: 'Angle',
		prompt: 'Hi {{first_name}}',
		outputColumn: 'angle',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: '3',
	}))
		form.set(name, value)
	const submission = parseWithZod(form, { schema: EnrichmentFormSchema })
	expect(submission.status).toBe('error')
	const errors = submission.status === 'error' ? submission.error : null
	expect(errors?.temperature?.[0]).toContain('empty for the model’s default')
})

// a 429 insufficient_quota was retried as a passing rate limit, five times a row
test('an account out of quota stops the run at once: "out of quota", nothing charged', async () => {
	openai.setOutOfQuota(true)
	try {
		const me = await accountWithCredits(100)
		const listId = await insertLeadList(me.accountId!, 20)
		const e = await createEnrichment(me, {
			...submitted({ model: 'gpt-4o-mini', temperature: '' }),
			listId,
		})
		const { runId } = await startRun(me, {
			listId,
			target: `enrichment:${e.id}`,
			payWith: 'credits',
		})
		const run = await settledRun(runId)
		expect(run.status).toBe(3)
		expect(run.error).toContain('out of quota')
		// the calls already in flight (5 at once), not 5 tries of each of 20 rows
		expect(openai.arrivals.length).toBeLessThanOrEqual(5)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	} finally {
		openai.setOutOfQuota(false)
	}
})
