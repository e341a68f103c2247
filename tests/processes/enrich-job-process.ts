// One enrich run's job handler in a process of its own, as a second worker process runs it:
// `node tests/processes/enrich-job-process.ts <runId>` with the test's DATABASE_URL and config.
// It says "ready" once loaded and connected, and starts on a line on stdin, so that processes
// started together run together however long each took to load on a busy machine.
import { once } from 'node:events'
import readline from 'node:readline'
import { sql } from 'kysely'
import { runEnrichment } from '../../app/services/enrichments/run-enrichment.server.ts'
import { db } from '../../db/index.server.ts'
import { stopBoss } from '../../app/jobs/boss.server.ts'

await sql`select 1`.execute(db)
const lines = readline.createInterface({ input: process.stdin })
process.stdout.write('ready\n')
// stdin closed without a line: the test went away before starting this process
const go = await Promise.race([
	once(lines, 'line').then(() => true),
	once(lines, 'close').then(() => false),
])
lines.close()
if (!go) {
	await db.destroy()
	process.exit(1)
}

await runEnrichment(process.argv[2]!, {
	jobId: `process-${process.pid}`,
	retryCount: 0,
	signal: new AbortController().signal,
})
// the run's end queues its notification's mail, which starts a job queue client here
await stopBoss()
await db.destroy()
