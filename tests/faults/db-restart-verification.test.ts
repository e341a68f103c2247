import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { stopBoss } from '../../app/jobs/boss.server.ts'
import { getCreditBalance, grantCredits } from '../../app/services/billing/credits.server.ts'
import { startVerification } from '../../app/services/verification/verify-runs.server.ts'
import { timesChecked } from '../fakes/verify-outcomes.ts'
import { ownPostgres } from '../support/own-postgres.ts'
import {
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'
import {
	insertEmails,
	startVerifyFakes,
	verifyEnv,
	type VerifyFakes,
} from '../support/verification.ts'

// Fault (issue 35): PostgreSQL crashes (`pg_ctl stop -m immediate`) while a list is being
// verified, and starts again 3 s later. The process running the job stays up, the run ends,
// every email is checked by the provider exactly once (the fake counts each check it
// answered), the few in flight at the crash are unknown (not asked twice, not charged), and
// the credits are settled once: the hold, then one refund of what was not charged.
const EMAILS = 400
let postgres: Awaited<ReturnType<typeof ownPostgres>>
let fakes: VerifyFakes
let server: ServerProcess

beforeAll(async () => {
	postgres = await ownPostgres()
	fakes = await startVerifyFakes()
	// 50 ms a check, 4 at a time: about 5 s for the list
	fakes.mv.setDelay(50)
	server = await startServerProcess(postgres.url, {
		...verifyEnv(fakes),
		VERIFY_CONCURRENCY: '4',
		WORKERS: '1',
		JOB_HEARTBEAT_SECONDS: '10',
		JOB_MONITOR_SECONDS: '1',
	})
}, 240_000)

afterAll(async () => {
	server?.child.kill('SIGKILL')
	await stopBoss()
	await db.destroy()
	await Promise.all([fakes?.mv.close(), fakes?.zb.close(), fakes?.reacher.close()])
	await postgres?.stop()
})

const runOf = (runId: string) =>
	db.selectFrom('verification_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow()

test('a database restart mid-verification: the run ends, each email checked once, credits settled once', async () => {
	const email = `verify-blip-${Date.now()}@example.com`
	await signUpOverHttp(server.url, email)
	const user = await db
		.selectFrom('auth.users')
		.select(['id', 'email'])
		.where('email', '=', email)
		.executeTakeFirstOrThrow()
	await grantCredits(db, { accountId: user.id, amount: 1000, reason: 'admin', reference: 'seed' })
	const me = await loadAccountContext(db, { id: user.id, email })
	// every third address invalid (charged), every fifth catch-all (not charged)
	const emails = Array.from({ length: EMAILS }, (_, i) =>
		i % 5 === 0 ? `catchall${i}@k.com` : i % 3 === 0 ? `invalid${i}@k.com` : `valid${i}@k.com`,
	)
	const listId = await insertEmails(user.id, emails)
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })

	// answers are being written: the crash lands among the checkpoints
	await expect
		.poll(async () => (await runOf(runId)).checked, { timeout: 60_000, interval: 20 })
		.toBeGreaterThanOrEqual(40)
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
	const run = await runOf(runId)
	expect(run).toMatchObject({ status: 2, checked: EMAILS, error: null })
	expect(server.exited(), server.output()).toBe(false)

	// no email asked twice; every email asked once, but for those in flight at the crash
	const counts = timesChecked(fakes.mv.checks)
	expect([...counts].filter(([, n]) => n > 1)).toEqual([])
	const interrupted = await db
		.selectFrom('verification_run_rows')
		.select('email')
		.where('run_id', '=', runId)
		.where('error', 'like', 'The check was interrupted%')
		.execute()
	// what was in flight, or answered but not written when the database went
	expect(interrupted.length).toBeLessThanOrEqual(8)
	const notAsked = interrupted.filter((r) => !counts.has(r.email)).length
	expect(counts.size + notAsked).toBe(EMAILS)
	const definitive = emails.filter(
		(e) => !e.startsWith('catchall') && !interrupted.some((r) => r.email === e),
	).length
	expect(run.charged).toBe(definitive)
	expect(await getCreditBalance(user.id)).toBe(1000 - definitive)
	const ledger = await db
		.selectFrom('credits')
		.select(['reason', 'delta'])
		.where('user_id', '=', user.id)
		.where('reference', '=', `verify:${runId}`)
		.execute()
	expect(ledger.map((l) => `${l.reason} ${l.delta}`).sort()).toEqual(
		[`refund ${EMAILS - definitive}`, `reservation -${EMAILS}`].sort(),
	)
}, 240_000)
