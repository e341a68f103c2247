import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { timesChecked } from '../../../tests/fakes/verify-outcomes.ts'
import { accountWithCredits, withProviderKey } from '../../../tests/support/jobs.ts'
import {
	insertEmails,
	settledVerification,
	startVerifyFakes,
	statusesOf,
	type VerifyFakes,
} from '../../../tests/support/verification.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { getCreditBalance, listCreditLedger } from '../billing/credits.server.ts'
import { getCreditHistory, listCostBreakdown } from '../billing/credit-history.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import {
	cancelVerification,
	estimateVerification,
	listVerifications,
	startVerification,
} from './verify-runs.server.ts'

// Issue 35 points 1-4 and 7: runs against the providers' fakes on a real database and worker.
let fakes: VerifyFakes
let workers: Workers
beforeAll(async () => {
	fakes = await startVerifyFakes()
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	await Promise.all([fakes.mv.close(), fakes.zb.close(), fakes.reacher.close()])
})

const EMAILS = [
	'valid1@acme.com',
	'info@acme.com',
	'invalid1@acme.com',
	'catchall1@acme.com',
	'disposable1@mailinator.com',
	'risky1@acme.com',
	'unknown1@acme.com',
]

test('credits: each email checked once, the one status set with role and raw kept, only definitive answers charged', async () => {
	const me = await accountWithCredits(100)
	const listId = await insertEmails(me.accountId!, EMAILS)
	const estimate = await estimateVerification(me, {
		listId,
		payWith: 'credits',
		only: 'unverified',
	})
	expect(estimate).toMatchObject({ rows: 7, cached: 0, toCheck: 7, credits: 7 })
	const before = fakes.mv.checks.length
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'unverified' })
	const run = await settledVerification(runId)
	expect(run).toMatchObject({ status: 2, checked: 7, charged: 4, error: null })
	const counts = timesChecked(fakes.mv.checks.slice(before))
	expect([...counts.keys()].sort()).toEqual([...EMAILS].sort())
	expect([...counts.values()].every((n) => n === 1)).toBe(true)

	const leads = await statusesOf(listId)
	expect(leads.get('valid1@acme.com')).toMatchObject({ verify_status: 'valid', verify_role: false })
	expect(leads.get('info@acme.com')).toMatchObject({ verify_status: 'valid', verify_role: true })
	expect(leads.get('invalid1@acme.com')?.verify_status).toBe('invalid')
	expect(leads.get('catchall1@acme.com')?.verify_status).toBe('catch_all')
	expect(leads.get('disposable1@mailinator.com')?.verify_status).toBe('disposable')
	expect(leads.get('risky1@acme.com')?.verify_status).toBe('risky')
	expect(leads.get('unknown1@acme.com')?.verify_status).toBe('unknown')
	expect(leads.get('valid1@acme.com')?.verify_raw).toMatchObject({ result: 'ok' })
	expect(leads.get('valid1@acme.com')?.verified_at).toBeInstanceOf(Date)

	// valid, info@ (valid), invalid, disposable: 4 of the 7 held; the rest came back, once
	expect(await getCreditBalance(me.accountId!)).toBe(96)
	const ledger = await listCreditLedger(me.accountId!)
	const refunds = ledger.filter((l) => l.reference === `verify:${runId}`)
	expect(refunds.map((l) => l.delta).sort()).toEqual([-7, 3])
	const history = await getCreditHistory(me.accountId!, new URLSearchParams())
	const lines = history.lines.filter((l) => l.subject?.label === 'Email verification of “List”')
	expect(lines.map((l) => l.delta).sort()).toEqual([-7, 3])
	expect(lines[0]!.subject?.href).toBe(`/lists/${listId}/verify`)
	expect(await listCostBreakdown(me.accountId!, 'leads', listId)).toMatchObject({
		verification: 4,
	})

	// a second run inside VERIFY_CACHE_DAYS asks nothing and costs nothing
	const again = await estimateVerification(me, { listId, payWith: 'credits', only: 'all' })
	expect(again).toMatchObject({ rows: 7, cached: 6, toCheck: 1, credits: 1 })
	const checks = fakes.mv.checks.length
	const second = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	expect(await settledVerification(second.runId)).toMatchObject({
		status: 2,
		cached: 6,
		charged: 0,
	})
	// only the unknown one (never cached) was asked again, free
	expect(fakes.mv.checks.slice(checks)).toEqual(['unknown1@acme.com'])
	expect(await getCreditBalance(me.accountId!)).toBe(96)
}, 60_000)

test('an imported email status stays as imported and is never taken for our check', async () => {
	const me = await accountWithCredits(10)
	const listId = await insertEmails(me.accountId!, ['valid2@acme.com'])
	await db
		.updateTable('leads')
		.set({ email_status: 'verified' })
		.where('list_id', '=', listId)
		.execute()
	const estimate = await estimateVerification(me, {
		listId,
		payWith: 'credits',
		only: 'unverified',
	})
	expect(estimate.toCheck).toBe(1)
	const lead = (await statusesOf(listId)).get('valid2@acme.com')
	expect(lead).toMatchObject({ email_status: 'verified', verify_status: null })
})

test('own ZeroBounce key: validatebatch carries the emails, per-email errors are unknown, no credits move', async () => {
	let me = await accountWithCredits(5)
	me = await withProviderKey(me, 'zerobounce', fakes.zb.apiKey)
	const emails = Array.from({ length: 120 }, (_, i) => `valid${i}@zb.com`).concat('error1@zb.com')
	const listId = await insertEmails(me.accountId!, emails)
	const batches = fakes.zb.batches.length
	const { runId } = await startVerification(me, { listId, payWith: 'zerobounce', only: 'all' })
	const run = await settledVerification(runId)
	expect(run).toMatchObject({ status: 2, checked: 121, charged: 0, credits_reserved: 0 })
	expect(fakes.zb.batches.slice(batches).sort()).toEqual([100, 21].sort())
	const leads = await statusesOf(listId)
	expect(leads.get('error1@zb.com')?.verify_status).toBe('unknown')
	expect(await getCreditBalance(me.accountId!)).toBe(5)
}, 60_000)

test("own Reacher server: the key test and a run go to the account's base URL, free; an internal base URL is refused when saved and when checking", async () => {
	const { saveApiKey, testApiKey } = await import('../api-keys/api-keys.server.ts')
	const { loadAccountContext } = await import('../../context.server.ts')
	const start = await accountWithCredits(5)
	// the fake listens on 127.0.0.1: allowed in tests (ALLOW_PRIVATE_URLS), as a local server is
	await saveApiKey(start, {
		provider: 'reacher',
		key: fakes.reacher.apiKey,
		baseUrl: fakes.reacher.url,
	})
	const me = await loadAccountContext(db, start.user)
	await expect(testApiKey(me, 'reacher')).resolves.toMatch(/The key works: Reacher answered/)
	const emails = ['valid1@reacher.com', 'invalid1@reacher.com']
	const listId = await insertEmails(me.accountId!, emails)
	const before = fakes.reacher.checks.length
	const { runId } = await startVerification(me, { listId, payWith: 'reacher', only: 'all' })
	expect(await settledVerification(runId)).toMatchObject({
		status: 2,
		checked: 2,
		charged: 0,
		credits_reserved: 0,
	})
	expect(fakes.reacher.checks.slice(before).sort()).toEqual([...emails].sort())
	const leads = await statusesOf(listId)
	expect(leads.get('valid1@reacher.com')?.verify_status).toBe('valid')
	expect(leads.get('invalid1@reacher.com')?.verify_status).toBe('invalid')
	expect(await getCreditBalance(me.accountId!)).toBe(5)

	// in production a user's URL may not lead to our own network
	process.env.ALLOW_PRIVATE_URLS = 'false'
	resetSingleton('config')
	try {
		await expect(
			saveApiKey(me, { provider: 'reacher', key: 'other', baseUrl: 'http://127.0.0.1:8080' }),
		).rejects.toMatchObject({ field: 'baseUrl' })
		// the key saved before: each check goes through the guard, and the run says why it stopped
		const other = await insertEmails(me.accountId!, ['valid2@reacher.com'], 'Other')
		const checks = fakes.reacher.checks.length
		const second = await startVerification(me, {
			listId: other,
			payWith: 'reacher',
			only: 'all',
		})
		const run = await settledVerification(second.runId)
		expect(run).toMatchObject({ status: 3, charged: 0 })
		expect(run.error).toMatch(/Reacher's URL leads to an internal address, which is not allowed/)
		expect(fakes.reacher.checks.length).toBe(checks)
		expect((await statusesOf(other)).get('valid2@reacher.com')?.verify_status).toBeNull()
	} finally {
		process.env.ALLOW_PRIVATE_URLS = 'true'
		resetSingleton('config')
	}
}, 60_000)

test('answers that are garbage make the emails unknown with a reason, refunded, never a charge', async () => {
	const me = await accountWithCredits(10)
	const listId = await insertEmails(me.accountId!, ['valid3@acme.com'])
	// the one try of the client, and the job's tries
	fakes.mv.malformedNext(10)
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	const run = await settledVerification(runId)
	fakes.mv.malformedNext(0)
	expect(run).toMatchObject({ status: 2, charged: 0 })
	const row = await db
		.selectFrom('verification_run_rows')
		.select(['result', 'error'])
		.where('run_id', '=', runId)
		.executeTakeFirstOrThrow()
	expect(row.result).toBe('unknown')
	expect(row.error).toMatch(/MillionVerifier sent an answer that is not what its API documents/)
	expect((await statusesOf(listId)).get('valid3@acme.com')?.verify_status).toBe('unknown')
	expect(await getCreditBalance(me.accountId!)).toBe(10)
}, 60_000)

test('a provider that does not answer in time: the emails end unknown with the reason, refunded exactly once, and the run says so', async () => {
	// MillionVerifier tries the mail server 2 s; our client waits 10 s more, the fake answers later
	process.env.MILLIONVERIFIER_TIMEOUT_SECONDS = '2'
	resetSingleton('config')
	fakes.mv.setDelay(13_000)
	try {
		const me = await accountWithCredits(10)
		const emails = ['valid1@late.com', 'invalid1@late.com']
		const listId = await insertEmails(me.accountId!, emails)
		const before = fakes.mv.checks.length
		const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
		const run = await settledVerification(runId, 100_000)
		expect(run).toMatchObject({ status: 2, checked: 2, charged: 0, error: null })
		const rows = await db
			.selectFrom('verification_run_rows')
			.select(['result', 'error', 'charged'])
			.where('run_id', '=', runId)
			.execute()
		expect(rows).toHaveLength(2)
		for (const row of rows)
			expect(row).toMatchObject({
				result: 'unknown',
				charged: false,
				error: 'MillionVerifier did not answer in time. Not charged; verify it again later.',
			})
		const leads = await statusesOf(listId)
		expect(emails.map((e) => leads.get(e)?.verify_status)).toEqual(['unknown', 'unknown'])
		// no answer reached us, so none was taken for a check
		expect(fakes.mv.checks.slice(before)).toEqual([])
		// held at the start, all of it back at the end, once
		expect(await getCreditBalance(me.accountId!)).toBe(10)
		const ledger = await listCreditLedger(me.accountId!)
		expect(
			ledger
				.filter((l) => l.reference === `verify:${runId}`)
				.map((l) => l.delta)
				.sort(),
		).toEqual([-2, 2])
		// the run's summary says what happened, in words
		expect((await listVerifications(me, listId))[0]!.notes).toEqual([
			'MillionVerifier did not answer in time. The emails it could not check are marked unknown and were not charged; verify again later to check them.',
		])
	} finally {
		fakes.mv.setDelay(0)
		delete process.env.MILLIONVERIFIER_TIMEOUT_SECONDS
		resetSingleton('config')
	}
}, 120_000)

test('the provider out of credits: the run stops, every unchecked email unknown and refunded', async () => {
	const me = await accountWithCredits(10)
	const listId = await insertEmails(me.accountId!, ['valid4@acme.com', 'valid5@acme.com'])
	fakes.mv.setOutOfCredits(true)
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	const run = await settledVerification(runId)
	fakes.mv.setOutOfCredits(false)
	expect(run.status).toBe(3)
	expect(run.error).toMatch(/The MillionVerifier account has no credits left/)
	expect(run.charged).toBe(0)
	const leads = await statusesOf(listId)
	expect([...leads.values()].every((l) => l.verify_status === 'unknown')).toBe(true)
	expect(await getCreditBalance(me.accountId!)).toBe(10)
}, 60_000)

test('a bad own key: caught by the key test, and at job start the run fails saying so, nothing charged', async () => {
	let me = await accountWithCredits(10)
	me = await withProviderKey(me, 'millionverifier', 'not-the-right-key')
	const { testApiKey } = await import('../api-keys/api-keys.server.ts')
	await expect(testApiKey(me, 'millionverifier')).rejects.toThrow(
		/The test failed: MillionVerifier refused the API key/,
	)
	// a key whose test failed is refused at once
	const listId = await insertEmails(me.accountId!, ['valid6@acme.com'])
	await expect(
		startVerification(me, { listId, payWith: 'millionverifier', only: 'all' }),
	).rejects.toThrow(/failed its last test/)
	// one never tested fails the run with the reason
	await db
		.updateTable('api_keys')
		.set({ test_error: null })
		.where('user_id', '=', me.accountId!)
		.execute()
	const { runId } = await startVerification(me, { listId, payWith: 'millionverifier', only: 'all' })
	const run = await settledVerification(runId)
	expect(run.status).toBe(3)
	expect(run.error).toMatch(/MillionVerifier refused the API key/)
	expect((await statusesOf(listId)).get('valid6@acme.com')?.verify_status).toBeNull()
}, 60_000)

test('429 with Retry-After is waited out: every email checked once and answered', async () => {
	const me = await accountWithCredits(10)
	const emails = ['valid7@acme.com', 'valid8@acme.com', 'invalid9@acme.com']
	const listId = await insertEmails(me.accountId!, emails)
	fakes.mv.rateLimitNext(4, 1)
	const before = fakes.mv.checks.length
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	expect(await settledVerification(runId)).toMatchObject({ status: 2, checked: 3, charged: 3 })
	const counts = timesChecked(fakes.mv.checks.slice(before))
	expect(emails.every((e) => counts.get(e) === 1)).toBe(true)
}, 60_000)

test('cancel: the unchecked work is refunded; one run of a list at a time', async () => {
	const me = await accountWithCredits(50)
	const listId = await insertEmails(
		me.accountId!,
		Array.from({ length: 30 }, (_, i) => `valid${i}@slow.com`),
	)
	fakes.mv.setDelay(300)
	try {
		const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
		await expect(
			startVerification(me, { listId, payWith: 'credits', only: 'all' }),
		).rejects.toThrow(/A verification of this list is running/)
		await cancelVerification(me, listId, runId)
		const run = await settledVerification(runId)
		expect(run).toMatchObject({ status: 3, error: 'Cancelled' })
		await new Promise((resolve) => setTimeout(resolve, 1000))
		expect(await getCreditBalance(me.accountId!)).toBe(50 - run.charged)
		const after = await db
			.selectFrom('verification_runs')
			.select('charged')
			.where('id', '=', runId)
			.executeTakeFirstOrThrow()
		// answers that came in after the cancel charge nothing
		expect(after.charged).toBe(run.charged)
	} finally {
		fakes.mv.setDelay(0)
	}
}, 60_000)

test("another account's list or run is a 404", async () => {
	const me = await accountWithCredits(10)
	const other = await accountWithCredits(10)
	const listId = await insertEmails(other.accountId!, ['valid@other.com'])
	await expect(
		estimateVerification(me, { listId, payWith: 'credits', only: 'all' }),
	).rejects.toMatchObject({ init: { status: 404 } })
	const { runId } = await startVerification(other, { listId, payWith: 'credits', only: 'all' })
	await expect(cancelVerification(me, listId, runId)).rejects.toMatchObject({
		init: { status: 404 },
	})
	await settledVerification(runId)
})

test('the verify form sent twice (a double click) starts one run and holds credits once', async () => {
	const { verifyPageAction } = await import('./verify-page.server.ts')
	const me = await accountWithCredits(20)
	const listId = await insertEmails(me.accountId!, ['valid1@twice.com', 'valid2@twice.com'])
	const send = () =>
		verifyPageAction(
			me,
			listId,
			new Request(`http://localhost/lists/${listId}/verify`, {
				method: 'POST',
				body: new URLSearchParams({
					intent: 'run',
					payWith: 'credits',
					only: 'all',
					idempotencyKey: '0b9c7a4e-3f1d-4c55-9a61-2f4f0d7e8a11',
				}),
			}),
		)
	const answers = await Promise.all([send(), send()])
	for (const answer of answers) expect((answer as Response).status).toBe(302)
	const runs = await db
		.selectFrom('verification_runs')
		.select('id')
		.where('list_id', '=', listId)
		.execute()
	expect(runs).toHaveLength(1)
	await settledVerification(runs[0]!.id)
	expect(await getCreditBalance(me.accountId!)).toBe(18)
})
