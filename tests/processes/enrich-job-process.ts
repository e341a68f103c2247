// One enrich run's job handler in a process of its own, as a second worker process runs it:
// `node tests/processes/enrich-job-process.ts <runId>` with the test's DATABASE_URL and config.
const runId = process.argv[2]!
const { runEnrichment } = await import('../../app/services/enrichments/run-enrichment.server.ts')
const { db } = await import('../../db/index.server.ts')
await runEnrichment(runId, {
	jobId: `process-${process.pid}`,
	retryCount: 0,
	signal: new AbortController().signal,
})
await db.destroy()
