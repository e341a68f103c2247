// `npm run bench:verify`: the verify job on BENCH_EMAILS (100,000) emails against the local
// MillionVerifier fake answering each check in BENCH_DELAY_MS (100 ms), with the key's rate
// limit (MILLIONVERIFIER_RATE_PER_SECOND, 160 a second by default, UNCONFIRMED in MillionVerifier's
// docs) shared through the database as in production (decision 0016). The floor is what the
// provider's limit allows: emails / min(rate, concurrency / delay) seconds; the run must end
// within 1.2x of it. The job runs in this process (the worker's role) against a real embedded
// PostgreSQL after the start (the web's role: estimate, run rows, credit hold); the process's
// peak RSS is printed beside it. BENCH_EMAILS=5000 for a loaded machine (say so).
import { startFakeMillionVerifier } from '../tests/fakes/millionverifier/server.ts'
import { startBenchDatabase } from './database.ts'

const EMAILS = Number(process.env.BENCH_EMAILS ?? 100_000)
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 100)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20)
const RATE = Number(process.env.BENCH_RATE ?? 160)

const fake = await startFakeMillionVerifier()
fake.setDelay(DELAY_MS)
const pg = await startBenchDatabase('verify', {
	VERIFY_PROVIDER: 'millionverifier',
	MILLIONVERIFIER_BASE_URL: fake.url,
	MILLIONVERIFIER_API_KEY: fake.apiKey,
	MILLIONVERIFIER_RATE_PER_SECOND: String(RATE),
	VERIFY_CONCURRENCY: String(CONCURRENCY),
	CREDITS_PER_VERIFICATION: '1',
})
let peakRss = 0
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200)

try {
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { insertUser } = await import('../tests/support/factories.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { grantCredits, getCreditBalance } =
		await import('../app/services/billing/credits.server.ts')
	const { startVerification } = await import('../app/services/verification/verify-runs.server.ts')
	const { runVerification } =
		await import('../app/services/verification/run-verification.server.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')

	const user = await insertUser(db)
	await grantCredits(db, {
		accountId: user.id,
		amount: EMAILS,
		reason: 'admin',
		reference: 'bench',
	})
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Bench', source_type: 'upload', status: 2, found: EMAILS })
		.returning('id')
		.executeTakeFirstOrThrow()
	for (let start = 0; start < EMAILS; start += 5000)
		await db
			.insertInto('leads')
			.values(
				Array.from({ length: Math.min(5000, EMAILS - start) }, (_, k) => ({
					list_id: list.id,
					user_id: user.id,
					email: `${(start + k) % 10 === 0 ? 'invalid' : 'valid'}${start + k}@example.com`,
				})),
			)
			.execute()

	const startedAt = performance.now()
	const { runId } = await startVerification(me, {
		listId: list.id,
		payWith: 'credits',
		only: 'all',
	})
	const startSeconds = (performance.now() - startedAt) / 1000
	const jobAt = performance.now()
	await runVerification(runId, {
		jobId: 'bench',
		retryCount: 0,
		signal: new AbortController().signal,
	})
	const seconds = (performance.now() - jobAt) / 1000
	const run = await db
		.selectFrom('verification_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
	if (run.status !== 2) throw new Error(`run ended ${run.status}: ${run.error}`)
	const perSecond = Math.min(RATE, CONCURRENCY / (DELAY_MS / 1000))
	const floor = EMAILS / perSecond
	const ratio = seconds / floor
	console.log(
		[
			`verify bench: ${EMAILS.toLocaleString('en')} emails, fake MillionVerifier ${DELAY_MS} ms per check, ${CONCURRENCY} in flight, key limit ${RATE}/s`,
			`floor (the provider's limit): ${floor.toFixed(1)} s (${perSecond}/s)`,
			`job: ${seconds.toFixed(1)} s = ${ratio.toFixed(2)}x the floor (${ratio <= 1.2 ? 'within' : 'OVER'} 1.2x); start (rows and hold): ${startSeconds.toFixed(1)} s`,
			`checks at the fake: ${fake.checks.length.toLocaleString('en')}, charged ${run.charged.toLocaleString('en')}, balance ${await getCreditBalance(user.id)}`,
			`peak RSS of this process (start and job): ${(peakRss / 1024 / 1024).toFixed(0)} MB (${peakRss < 300 * 1024 * 1024 ? 'under' : 'OVER'} 300 MB)`,
		].join('\n'),
	)
	await stopBoss()
	await db.destroy()
} finally {
	clearInterval(sampler)
	await fake.close()
	await pg.stop()
}
