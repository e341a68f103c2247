import { afterAll, beforeAll, expect } from 'vitest'
import { db } from '../../db/index.server.ts'
import { startWorkers, type Workers } from '../../app/jobs/worker.server.ts'
import { resetSingleton } from '../../app/utils/singleton.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.ts'

/** Platform-paid enrichment against `openai`: 1 credit a call, 5 at once, no rate limit. */
export function useEnrichmentSettings(openai: FakeOpenAI) {
	Object.assign(process.env, {
		OPENAI_BASE_URL: openai.url,
		OPENAI_API_KEY: openai.apiKey,
		ENRICH_RATE_PER_SECOND: '1000',
		ENRICH_CONCURRENCY: '5',
		CREDITS_PER_ENRICHMENT: '1',
	})
	resetSingleton('config')
}

/**
 * For one test file, the enrich job end to end: the local OpenAI fake, platform-paid
 * enrichment against it, and this process's workers. `openai` is there once the file's
 * `beforeAll` ran (read it inside tests and hooks).
 */
export function fakeOpenAIAndWorkers() {
	const started = {} as { openai: FakeOpenAI; workers: Workers }
	beforeAll(async () => {
		started.openai = await startFakeOpenAI()
		useEnrichmentSettings(started.openai)
		started.workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
	})
	afterAll(async () => {
		await started.workers?.stop()
		await started.openai?.close()
	})
	return started
}

/**
 * A finished lead list of `count` leads: person{i}@example.com, First{i} Last{i}, a company
 * domain on even rows only; company names and titles as the test needs them.
 */
export async function insertLeadList(
	accountId: string,
	count: number,
	options: { company?: (i: number) => string; title?: (i: number) => string } = {},
) {
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: accountId, name: 'List', source_type: 'upload', status: 2, found: count })
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('leads')
		.values(
			Array.from({ length: count }, (_, i) => ({
				list_id: list.id,
				user_id: accountId,
				email: `person${i}@example.com`,
				first_name: `First${i}`,
				last_name: `Last${i}`,
				company_name: options.company?.(i) ?? `Company ${i}`,
				company_domain: i % 2 === 0 ? `company${i}.com` : null,
				title: options.title?.(i) ?? 'CEO',
			})),
		)
		.execute()
	return list.id
}

const INDUSTRIES = ['software', 'retail', 'banking']

/**
 * A finished company list of `count` companies: Company {i}, company{i}.com, industries
 * software, retail and banking in turn, 10 × (i + 1) employees.
 */
export async function insertCompanyList(accountId: string, count: number) {
	const list = await db
		.insertInto('company_scraping_list')
		.values({
			user_id: accountId,
			name: 'Companies',
			source_type: 'apollo',
			status: 2,
			found: count,
			requested: count,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('companies')
		.values(
			Array.from({ length: count }, (_, i) => ({
				list_id: list.id,
				user_id: accountId,
				name: `Company ${i}`,
				domain: `company${i}.com`,
				industry: INDUSTRIES[i % 3]!,
				employees: 10 * (i + 1),
			})),
		)
		.execute()
	return list.id
}

/** Waits for an enrichment run to end (status 2 or more); returns the run. */
export async function settledRun(runId: string) {
	await expect
		.poll(
			async () =>
				(
					await db
						.selectFrom('enrichment_runs')
						.select('status')
						.where('id', '=', runId)
						.executeTakeFirstOrThrow()
				).status,
			{ timeout: 20_000, interval: 100 },
		)
		.toBeGreaterThanOrEqual(2)
	return db
		.selectFrom('enrichment_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
}
