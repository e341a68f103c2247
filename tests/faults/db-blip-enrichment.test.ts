import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { stopBoss } from '../../app/jobs/boss.server.ts'
import { grantCredits } from '../../app/services/billing/credits.server.ts'
import { createEnrichment } from '../../app/services/enrichments/enrichments.server.ts'
import { startRun } from '../../app/services/enrichments/start-enrichment.server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.ts'
import { insertLeadList, useEnrichmentSettings } from '../support/enrichment.ts'
import { ownPostgres } from '../support/own-postgres.ts'
import {
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'

// Fault (issue 40, point 1): PostgreSQL crashes (`pg_ctl stop -m immediate`) while an
// enrichment writes its rows, and starts again 3 s later. The process running the job (the
// web server with its workers, as `npm start` runs it) must stay up and the run must finish.
let postgres: Awaited<ReturnType<typeof ownPostgres>>
let openai: FakeOpenAI
let server: ServerProcess

beforeAll(async () => {
	postgres = await ownPostgres()
	openai = await startFakeOpenAI({ delayMs: 5 })
	useEnrichmentSettings(openai)
	server = await startServerProcess(postgres.url, {
		WORKERS: '1',
		JOB_HEARTBEAT_SECONDS: '10',
		JOB_MONITOR_SECONDS: '1',
	})
}, 240_000)

afterAll(async () => {
	server?.child.kill('SIGKILL')
	await stopBoss()
	await db.destroy()
	await openai?.close()
	await postgres?.stop()
})

const runOf = (runId: string) =>
	db
		.selectFrom('enrichment_runs')
		.select(['status', 'rows_done', 'rows_failed', 'total', 'error'])
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()

test('a database crash mid-enrichment: the process stays up and the run finishes', async () => {
	const email = `blip-${Date.now()}@example.com`
	await signUpOverHttp(server.url, email)
	const user = await db
		.selectFrom('auth.users')
		.select(['id', 'email'])
		.where('email', '=', email)
		.executeTakeFirstOrThrow()
	await grantCredits(db, { accountId: user.id, amount: 10_000, reason: 'admin', reference: 'seed' })
	const me = await loadAccountContext(db, { id: user.id, email })
	const listId = await insertLeadList(user.id, 3000)
	const enrichment = await createEnrichment(me, {
		name: 'Summary',
		prompt: 'Describe {{company_name}} for {{first_name}}',
		outputColumn: 'summary',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	const { runId } = await startRun(me, {
		listId,
		target: `enrichment:${enrichment.id}`,
		payWith: 'credits',
	})
	// rows are being written: the crash lands among the background writes
	await expect
		.poll(async () => (await runOf(runId)).rows_done, { timeout: 60_000, interval: 50 })
		.toBeGreaterThanOrEqual(200)

	await postgres.crash()
	await new Promise((resolve) => setTimeout(resolve, 3000))
	expect(server.exited(), server.output()).toBe(false)
	await postgres.restart()

	await expect
		.poll(async () => (await runOf(runId).catch(() => null))?.status, {
			timeout: 120_000,
			interval: 250,
		})
		.toBeGreaterThanOrEqual(2)
	expect(await runOf(runId)).toMatchObject({
		status: 2,
		rows_done: 3000,
		rows_failed: 0,
		total: 3000,
		error: null,
	})
	expect(server.exited(), server.output()).toBe(false)
}, 240_000)
