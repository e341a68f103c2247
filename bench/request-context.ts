// `npm run bench:context`: the request context statement (app/context.server.ts), which
// also checks that the access token's session is live, sent as a named prepared statement,
// as the app sends it, against the same text sent unnamed (parsed and planned every time),
// on one connection of a real (embedded) PostgreSQL; and how many statements one request
// context takes (one round trip).
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely'
import type { DB } from '../db/schema.ts'
import { startBenchDatabase } from './database.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 3000)

const pg = await startBenchDatabase('context')

try {
	const { createDb, createPool } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	const { seedPricePlans } = await import('../db/seed.ts')
	const { loadSessionContext } = await import('../app/context.server.ts')
	const { insertSubscription, insertUser } = await import('../tests/support/factories.ts')
	const db = createDb(pg.url, { max: 1 })
	await migrateToLatest(db)
	await seedPricePlans(db)
	const user = await insertUser(db)
	await insertSubscription(db, user.id, { plan: 2 })
	// A signed-in session, as the auth service writes it: the context checks it is live.
	const sessionId = crypto.randomUUID()
	await db
		.insertInto('auth.sessions')
		.values({ id: sessionId, user_id: user.id, created_at: new Date(), aal: 'aal1' })
		.execute()
	const signedIn = { ...user, sessionId }

	// The statement as the app compiles it, captured once from Kysely's query log.
	let compiled: CompiledQuery | undefined
	let statements = 0
	const capture = new Kysely<DB>({
		dialect: new PostgresDialect({ pool: createPool(pg.url, { max: 1 }) }),
		log(event) {
			compiled ??= event.query
			statements++
		},
	})
	const context = await loadSessionContext(capture, signedIn)
	await capture.destroy()
	if (!context) throw new Error('the live session was not recognised')
	// The same text with a comment in front is a different statement: sent unnamed.
	const unnamed = CompiledQuery.raw(`/* unnamed */ ${compiled!.sql}`, [...compiled!.parameters])

	const prepared = await time(() => loadSessionContext(db, signedIn))
	const unprepared = await time(() => db.executeQuery(unnamed))
	console.log(`request context with the session check: ${statements} statement(s), one round trip`)
	console.log(
		`request context, ${CALLS} calls on one connection: prepared ${prepared.toFixed(3)} ms, ` +
			`unprepared ${unprepared.toFixed(3)} ms per call`,
	)
	await db.destroy()
} finally {
	await pg.stop()
}

async function time(call: () => Promise<unknown>) {
	for (let i = 0; i < 50; i++) await call()
	const start = performance.now()
	for (let i = 0; i < CALLS; i++) await call()
	return (performance.now() - start) / CALLS
}
