import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeEach, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import {
	fakeOpenAIAndWorkers,
	insertLeadList,
	settledRun,
	useEnrichmentSettings,
} from '../../../tests/support/enrichment.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import type { AccountContext } from '../../context.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { createEnrichment } from './enrichments.server.ts'
import { retryFailedRows, startRun } from './start-enrichment.server.ts'

// Issue 40 point 8: how an enrichment run meets a provider that rate limits, is down, or
// answers something unreadable. The real worker and database against the OpenAI fake.
const started = fakeOpenAIAndWorkers()
beforeEach(() => {
	started.openai.reset()
	useEnrichmentSettings(started.openai)
})

async function runOn(me: AccountContext, rows: number) {
	const listId = await insertLeadList(me.accountId!, rows)
	const enrichment = await createEnrichment(me, {
		name: 'Summary',
		prompt: 'Describe {{company_name}} for {{first_name}}',
		outputColumn: 'summary',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	return startRun(me, { listId, target: `enrichment:${enrichment.id}`, payWith: 'credits' })
}

const rowsOf = (runId: string) =>
	db
		.selectFrom('enrichment_run_rows')
		.select(['status', 'error', 'calls'])
		.where('run_id', '=', runId)
		.execute()

describe('enrichment against a provider in trouble', () => {
	test('a burst of 429s slows the run down; no row fails', async () => {
		const me = await accountWithCredits(100)
		// more 429s than the tries a row used to have (5 each, 5 rows at once)
		started.openai.rateLimitNext(40, 1)
		const { runId } = await runOn(me, 10)
		const run = await settledRun(runId)
		expect(run).toMatchObject({ status: 2, error: null })
		const rows = await rowsOf(runId)
		expect(rows.map((r) => r.status)).toEqual(Array(10).fill(2))
		expect(started.openai.requests.filter((r) => r.endsWith(' 429'))).toHaveLength(40)
		expect(await getCreditBalance(me.accountId!)).toBe(90)
	}, 60_000)

	test('a provider that is down stops the run, failed, with a reason; nothing is charged', async () => {
		const me = await accountWithCredits(100)
		started.openai.failNext(100_000)
		const { runId } = await runOn(me, 30)
		const run = await settledRun(runId)
		expect(run.status).toBe(3)
		expect(run.error).toBe(
			'The run stopped after 3 rows in a row failed: The AI provider is having trouble (500). Rows not done are not charged; unused credits were refunded. Retry the failed rows when the provider is back.',
		)
		// far fewer than 5 calls a row for every row
		const calls = started.openai.arrivals.length
		expect(calls).toBeLessThan(40)
		const rows = await rowsOf(runId)
		expect(rows.filter((r) => r.status === 2)).toHaveLength(0)
		expect(rows.filter((r) => r.status === 0).length).toBeGreaterThan(10)
		expect(await getCreditBalance(me.accountId!)).toBe(100)

		// back up: retrying the failed rows takes the ones never tried too
		started.openai.reset()
		await retryFailedRows(me, runId)
		expect(await settledRun(runId)).toMatchObject({ status: 2 })
		expect((await rowsOf(runId)).every((r) => r.status === 2)).toBe(true)
		expect(await getCreditBalance(me.accountId!)).toBe(70)
	}, 60_000)

	test('an answer that is not JSON fails its row with a message a person can read', async () => {
		const garbage = http.createServer((req, res) => {
			req.resume()
			req.on('end', () => {
				res.writeHead(200, { 'Content-Type': 'application/json' })
				res.end('<html>upstream proxy says hello</html>')
			})
		})
		await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve))
		try {
			process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}/v1`
			resetSingleton('config')
			const me = await accountWithCredits(10)
			const { runId } = await runOn(me, 2)
			await settledRun(runId)
			const rows = await rowsOf(runId)
			expect(rows.map((r) => [r.status, r.error])).toEqual([
				[3, 'The AI provider sent an answer that could not be read.'],
				[3, 'The AI provider sent an answer that could not be read.'],
			])
			expect(await getCreditBalance(me.accountId!)).toBe(10)
		} finally {
			garbage.closeAllConnections()
			await new Promise((resolve) => garbage.close(resolve))
		}
	}, 60_000)
})
