import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { getCreditBalance } from '../../app/services/billing/credits.server.ts'
import { startVerification } from '../../app/services/verification/verify-runs.server.ts'
import { timesChecked } from '../fakes/verify-outcomes.ts'
import { accountWithCredits } from '../support/jobs.ts'
import { insertEmails, startVerifyFakes, type VerifyFakes } from '../support/verification.ts'
import { workerProcesses } from '../support/worker-process.ts'

// Issue 35: `npm run worker` verifying a list is killed with SIGKILL midway. The next worker
// takes the run over once the job's heartbeat has lapsed; every email ends checked exactly once
// by the provider (the fake counts every check it answered), the few the killed worker had asked
// for without getting an answer are unknown (not asked twice, not charged), and the credits are
// settled once: charged for the definitive answers, the rest of the hold back.
const EMAILS = 240
let fakes: VerifyFakes
const workers = workerProcesses({ VERIFY_CONCURRENCY: '4' })

beforeAll(async () => {
	fakes = await startVerifyFakes()
	// 100 ms a check, 4 at a time: about 6 s for the list
	fakes.mv.setDelay(100)
})
afterAll(async () => {
	workers.killAll()
	await Promise.all([fakes.mv.close(), fakes.zb.close(), fakes.reacher.close()])
})

const runOf = (runId: string) =>
	db.selectFrom('verification_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow()

test('a worker killed mid-verification: the next one finishes, each email checked once, credits settled once', async () => {
	const me = await accountWithCredits(1000)
	// every third address invalid (charged), every fifth catch-all (not charged)
	const emails = Array.from({ length: EMAILS }, (_, i) =>
		i % 5 === 0 ? `catchall${i}@k.com` : i % 3 === 0 ? `invalid${i}@k.com` : `valid${i}@k.com`,
	)
	const listId = await insertEmails(me.accountId!, emails)
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	expect(await getCreditBalance(me.accountId!)).toBe(1000 - EMAILS)

	const first = workers.start()
	await first.ready
	await expect
		.poll(async () => (await runOf(runId)).checked, { timeout: 60_000, interval: 20 })
		.toBeGreaterThan(20)
	first.child.kill('SIGKILL')
	await new Promise((resolve) => first.child.once('exit', resolve))
	const atKill = (await runOf(runId)).checked
	expect(atKill).toBeLessThan(EMAILS)

	const second = workers.start()
	await second.ready
	await expect
		.poll(async () => (await runOf(runId)).status, { timeout: 120_000, interval: 250 })
		.toBe(2)
	second.child.kill('SIGTERM')

	const run = await runOf(runId)
	expect(run.checked).toBe(EMAILS)
	const counts = timesChecked(fakes.mv.checks)
	const twice = [...counts].filter(([, n]) => n > 1)
	expect(twice).toEqual([])
	// the requests in flight at the kill (at most VERIFY_CONCURRENCY): unknown, with the reason
	const interrupted = await db
		.selectFrom('verification_run_rows')
		.select(['email', 'error'])
		.where('run_id', '=', runId)
		.where('error', 'like', 'The check was interrupted%')
		.execute()
	expect(interrupted.length).toBeLessThanOrEqual(4)
	expect(counts.size + interrupted.filter((r) => !counts.has(r.email)).length).toBe(EMAILS)
	const definitive = emails.filter(
		(e) => !e.startsWith('catchall') && !interrupted.some((r) => r.email === e),
	).length
	expect(run.charged).toBe(definitive)
	expect(await getCreditBalance(me.accountId!)).toBe(1000 - definitive)
	const ledger = await db
		.selectFrom('credits')
		.select(['reason', 'delta'])
		.where('user_id', '=', me.accountId!)
		.where('reference', '=', `verify:${runId}`)
		.execute()
	expect(ledger.map((l) => `${l.reason} ${l.delta}`).sort()).toEqual(
		[`refund ${EMAILS - definitive}`, `reservation -${EMAILS}`].sort(),
	)
}, 240_000)
