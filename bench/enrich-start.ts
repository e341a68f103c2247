// `npm run bench:enrich-start`: starting an enrichment run on a list of 1,000,000 leads
// (BENCH_ROWS) in a fresh embedded PostgreSQL: the time startRun takes (what the request on
// /lists/:id/enrich waits for), for the whole list and for a filter that takes one lead in
// ten, then the enrich job's first phase writing the run's rows (rows per second), against
// the same rows written in one statement (what the request did before decision 0019). No
// model is called: the bench stops before the enrichment itself.
import { loadavg } from 'node:os'
import type { RunFilter } from '../app/services/enrichments/run-filter.ts'
import { startBenchDatabase } from './database.ts'

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000)

const pg = await startBenchDatabase('enrich-start', {
	OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
	OPENAI_API_KEY: 'sk-bench',
	CREDITS_PER_ENRICHMENT: '1',
})

const seconds = (since: number) => (performance.now() - since) / 1000

try {
	const { sql } = await import('kysely')
	const { db } = await import('../db/index.server.ts')
	const { migrateToLatest } = await import('../db/migrate.ts')
	await migrateToLatest(db)
	const { insertUser } = await import('../tests/support/factories.ts')
	const { loadAccountContext } = await import('../app/context.server.ts')
	const { grantCredits } = await import('../app/services/billing/credits.server.ts')
	const { createEnrichment } = await import('../app/services/enrichments/enrichments.server.ts')
	const { startRun } = await import('../app/services/enrichments/start-enrichment.server.ts')
	const { runRowsTuning, writeRunRows } =
		await import('../app/services/enrichments/run-enrichment.server.ts')
	const { filteredLeads } = await import('../app/services/enrichments/run-filter.server.ts')
	const { WHOLE_LIST } = await import('../app/services/enrichments/run-filter.ts')
	const { stopBoss } = await import('../app/jobs/boss.server.ts')

	const user = await insertUser(db)
	await grantCredits(db, { accountId: user.id, amount: ROWS * 3, reason: 'admin', reference: 'b' })
	const me = await loadAccountContext(db, user)
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: user.id, name: 'Bench', source_type: 'upload', status: 2, found: ROWS })
		.returning('id')
		.executeTakeFirstOrThrow()
	const generated = performance.now()
	// one lead in ten is a CEO: the filtered run takes those
	await sql`
		insert into leads (list_id, user_id, email, first_name, last_name, title, company_name)
		select ${list.id}, ${user.id}, 'lead' || i || '@example.com', 'First' || i, 'Last' || i,
			case when i % 10 = 0 then 'CEO' else 'Engineer' end, 'Company ' || (i % 50000)
		from generate_series(1, ${ROWS}) as i`.execute(db)
	await sql`vacuum analyze leads`.execute(db)
	console.log(
		`${ROWS.toLocaleString('en')} leads written in ${seconds(generated).toFixed(1)} s (load average ${loadavg()[0]!.toFixed(1)})`,
	)
	const enrichment = await createEnrichment(me, {
		name: 'Bench',
		prompt: 'One line about {{company_name}} for {{first_name}}',
		outputColumn: 'bench_line',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})

	async function measure(label: string, filter?: Parameters<typeof startRun>[1]['filter']) {
		const started = performance.now()
		const { runId, estimate } = await startRun(me, {
			listId: list.id,
			target: `enrichment:${enrichment.id}`,
			payWith: 'credits',
			filter,
		})
		const start = seconds(started)
		const run = await db
			.selectFrom('enrichment_runs')
			.select(['filter'])
			.where('id', '=', runId)
			.executeTakeFirstOrThrow()
		const target = {
			listId: list.id,
			accountId: user.id,
			enrichmentId: enrichment.id,
			chainId: null,
			outputColumns: ['bench_line'],
		}
		const rowCount = async () => {
			const { n } = await db
				.selectFrom('enrichment_run_rows')
				.select((eb) => eb.fn.countAll<string>().as('n'))
				.where('run_id', '=', runId)
				.executeTakeFirstOrThrow()
			if (Number(n) !== estimate.rows) throw new Error(`${n} run rows for ${estimate.rows} leads`)
		}
		// the baseline, first: the same rows in one statement, as the request wrote them
		const single = performance.now()
		await db
			.insertInto('enrichment_run_rows')
			.columns(['run_id', 'lead_id'])
			.expression(
				filteredLeads(db, target, (run.filter as RunFilter | null) ?? WHOLE_LIST).select([
					sql<string>`${runId}::uuid`.as('run_id'),
					'leads.id as lead_id',
				]),
			)
			.execute()
		const oneStatement = seconds(single)
		await rowCount()
		await db.deleteFrom('enrichment_run_rows').where('run_id', '=', runId).execute()
		await sql`vacuum enrichment_run_rows`.execute(db)

		const written = performance.now()
		await writeRunRows(runId, new AbortController().signal)
		const phase = seconds(written)
		await rowCount()
		const rate = (s: number) => `${Math.round(estimate.rows / s).toLocaleString('en')} rows/s`
		console.log(
			[
				`${label}: ${estimate.rows.toLocaleString('en')} leads (load average ${loadavg()[0]!.toFixed(1)})`,
				`  startRun (the request): ${start.toFixed(2)} s`,
				`  the job writing the run rows in batches of ${runRowsTuning.batchRows.toLocaleString('en')}: ${phase.toFixed(1)} s = ${rate(phase)}`,
				`  baseline, the same rows in one statement (what the request did before): ${oneStatement.toFixed(1)} s = ${rate(oneStatement)}`,
			].join('\n'),
		)
		// the job stops here: the next run starts from a list with no run in progress
		await db.deleteFrom('enrichment_runs').where('id', '=', runId).execute()
	}

	await measure('whole list')
	await measure('title equals "ceo"', {
		where: [{ column: 'title', op: 'equals', value: 'ceo' }],
	})
	await stopBoss()
	await db.destroy()
} finally {
	await pg.stop()
}
