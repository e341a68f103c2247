// `npm run bench:enrich`: the enrich job on 10,000 leads against the local OpenAI-compatible
// fake answering each call in 50 ms, with 20 calls in flight: rows per second against the
// ideal 20 / 0.05 s = 400 rows/s, then the same run again with every answer cached.
// Runs the job's handler in this process against a real (embedded) PostgreSQL.
import { startFakeOpenAI } from '../tests/fakes/openai/server.ts'
import { startBenchDatabase } from './database.ts'

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000)
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 50)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20)
// calls per second per provider key: by default far above what the fake allows, so the bench
// measures the job; BENCH_RATE=300 shows how close the job keeps to a limit that binds
const RATE = Number(process.env.BENCH_RATE ?? 10_000)

const openai = await startFakeOpenAI({ delayMs: DELAY_MS })
const pg = await startBenchDatabase('enrich', {
	OPENAI_BASE_URL: openai.url,
	OPENAI_API_KEY: openai.apiKey,
	ENRICH_CONCURRENCY: String(CONCURRENCY),
	ENRICH_RATE_PER_SECOND: String(RATE),
	CREDITS_PER_ENRICHMENT: '1',
})

try {
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { insertUser } = await import('../tests/support/factories.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { grantCredits, getCreditBalance } =
		await import('../app/services/billing/credits.server.ts')
	const { createEnrichment } = await import('../app/services/enrichments/enrichments.server.ts')
	const { startRun } = await import('../app/services/enrichments/start-enrichment.server.ts')
	const { runEnrichment } = await import('../app/services/enrichments/run-enrichment.server.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')

	const user = await insertUser(db)
	await grantCredits(db, {
		accountId: user.id,
		amount: ROWS * 3,
		reason: 'admin',
		reference: 'bench',
	})
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Bench', source_type: 'upload', status: 2, found: ROWS })
		.returning('id')
		.executeTakeFirstOrThrow()
	for (let start = 0; start < ROWS; start += 1000) {
		await db
			.insertInto('leads')
			.values(
				Array.from({ length: Math.min(1000, ROWS - start) }, (_, k) => ({
					list_id: list.id,
					user_id: user.id,
					email: `lead${start + k}@example.com`,
					first_name: `First${start + k}`,
					company_name: `Company ${start + k}`,
				})),
			)
			.execute()
	}
	const enrichment = await createEnrichment(me, {
		name: 'Bench',
		prompt: 'One line about {{company_name}} for {{first_name}}',
		outputColumn: 'bench_line',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})

	async function timedRun() {
		const { runId } = await startRun(me, {
			listId: list.id,
			target: `enrichment:${enrichment.id}`,
			payWith: 'credits',
		})
		const callsBefore = openai.calls.length
		const started = performance.now()
		await runEnrichment(runId, {
			jobId: 'bench',
			retryCount: 0,
			signal: new AbortController().signal,
		})
		const seconds = (performance.now() - started) / 1000
		const run = await db
			.selectFrom('enrichment_runs')
			.select(['status', 'error'])
			.where('id', '=', runId)
			.executeTakeFirstOrThrow()
		if (run.status !== 2) throw new Error(`run ended ${run.status}: ${run.error}`)
		return { seconds, calls: openai.calls.length - callsBefore }
	}

	// the ceiling on this machine: the same calls straight through the client, no job, no database
	const { createModelClient } = await import('../app/integrations/openai.server.ts')
	const client = createModelClient({ baseUrl: openai.url, apiKey: openai.apiKey })
	const rawCalls = Math.min(ROWS, 2000)
	let sent = 0
	const rawStart = performance.now()
	await Promise.all(
		Array.from({ length: CONCURRENCY }, async () => {
			while (sent < rawCalls) {
				sent += 1
				await client.complete({
					model: 'gpt-4o-mini',
					prompt: `raw ${sent}`,
					temperature: 0,
					format: { kind: 'text' },
				})
			}
		}),
	)
	const rawRate = rawCalls / ((performance.now() - rawStart) / 1000)

	const balance0 = await getCreditBalance(user.id)
	const first = await timedRun()
	const balance1 = await getCreditBalance(user.id)
	const again = await timedRun()
	const balance2 = await getCreditBalance(user.id)
	const ideal = Math.min(RATE, CONCURRENCY / (DELAY_MS / 1000))
	const rate = ROWS / first.seconds
	console.log(
		[
			`enrich bench: ${ROWS.toLocaleString('en')} rows, fake model ${DELAY_MS} ms per call, concurrency ${CONCURRENCY}, at most ${RATE} calls/s per key`,
			`first run:  ${first.seconds.toFixed(1)} s, ${first.calls} calls, ${rate.toFixed(0)} rows/s = ${((rate / ideal) * 100).toFixed(0)}% of the ideal ${ideal} rows/s, ${balance0 - balance1} credits`,
			`the client alone (no job, no database): ${rawRate.toFixed(0)} calls/s; the job reaches ${((rate / rawRate) * 100).toFixed(0)}% of that`,
			`re-run:     ${again.seconds.toFixed(2)} s, ${again.calls} calls (all cached), ${(ROWS / again.seconds).toFixed(0)} rows/s, ${balance1 - balance2} credits`,
		].join('\n'),
	)
	await stopBoss()
	await db.destroy()
} finally {
	await openai.close()
	await pg.stop()
}
