// One enrich run's job handler in a process of its own, as a second worker process runs it:
// `node tests/processes/enrich-job-process.ts <runId>` with the test's DATABASE_URL and config.
import { runEnrichment } from '../../app/services/enrichments/run-enrichment.server.ts'
import { db } from '../../db/index.server.ts'

await runEnrichment(process.argv[2]!, {
	jobId: `process-${process.pid}`,
	retryCount: 0,
	signal: new AbortController().signal,
})
await db.destroy()
