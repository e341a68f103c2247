import { afterAll, beforeAll, expect, test } from 'vitest'
import { timesChecked } from '../../../tests/fakes/verify-outcomes.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import {
	insertEmails,
	settledVerification,
	startVerifyFakes,
	statusesOf,
	type VerifyFakes,
} from '../../../tests/support/verification.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { startWorkers, type Workers } from '../../jobs/worker.server.ts'
import { getCreditBalance } from '../billing/credits.server.ts'
import { listVerifications, startVerification } from './verify-runs.server.ts'

// Issue 35 point 1 (decision 0099): a large MillionVerifier run goes through its bulk file API
// (upload, poll while the provider is slow, download), and falls back to single checks when
// the file API is not there; point 7: a file refused for no credits fails its emails unknown.
let fakes: VerifyFakes
let workers: Workers
beforeAll(async () => {
	fakes = await startVerifyFakes()
	process.env.MILLIONVERIFIER_BULK_MIN = '5'
	resetSingleton('config')
	workers = await startWorkers({ concurrency: 2, drainSeconds: 2 })
})
afterAll(async () => {
	await workers.stop()
	delete process.env.MILLIONVERIFIER_BULK_MIN
	resetSingleton('config')
	await Promise.all([fakes.mv.close(), fakes.zb.close(), fakes.reacher.close()])
})

const EMAILS = [
	'valid1@bulk.com',
	'valid2@bulk.com',
	'info@bulk.com',
	'invalid1@bulk.com',
	'catchall1@bulk.com',
	'disposable1@bulk.com',
	'unknown1@bulk.com',
]

test('a large run is one bulk file: uploaded once, polled while the provider works, each email answered and only definitive answers charged', async () => {
	fakes.mv.setBulkRate(3) // 7 emails: about 2.5 s of processing
	const me = await accountWithCredits(100)
	const listId = await insertEmails(me.accountId!, EMAILS)
	const singles = fakes.mv.calls.filter((c) => c.startsWith('GET /api/v3')).length
	const files = fakes.mv.files.size
	const before = fakes.mv.checks.length
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	const run = await settledVerification(runId, 40_000)
	expect(run).toMatchObject({ status: 2, checked: 7, charged: 5, error: null })
	expect(fakes.mv.files.size).toBe(files + 1)
	expect([...fakes.mv.files.values()].at(-1)!.emails.sort()).toEqual([...EMAILS].sort())
	expect(fakes.mv.calls.filter((c) => c === 'GET /bulkapi/v2/fileinfo').length).toBeGreaterThan(1)
	expect(fakes.mv.calls.filter((c) => c.startsWith('GET /api/v3')).length).toBe(singles)
	const counts = timesChecked(fakes.mv.checks.slice(before))
	expect([...counts.values()].every((n) => n === 1)).toBe(true)
	const leads = await statusesOf(listId)
	expect(leads.get('info@bulk.com')).toMatchObject({ verify_status: 'valid', verify_role: true })
	expect(leads.get('invalid1@bulk.com')?.verify_status).toBe('invalid')
	expect(leads.get('catchall1@bulk.com')?.verify_status).toBe('catch_all')
	expect(leads.get('disposable1@bulk.com')?.verify_status).toBe('disposable')
	expect(leads.get('unknown1@bulk.com')?.verify_status).toBe('unknown')
	// valid1, valid2, info@, invalid1, disposable1
	expect(await getCreditBalance(me.accountId!)).toBe(95)
	// nothing out of the ordinary to tell
	expect((await listVerifications(me, listId))[0]!.notes).toEqual([])
	fakes.mv.setBulkRate(Infinity)
}, 60_000)

test('a run of more than a file: each email answered once, only definitive answers charged, no report left waiting', async () => {
	const me = await accountWithCredits(20_000)
	const emails = Array.from(
		{ length: 10_005 },
		(_, i) => `${i % 10 === 0 ? 'invalid' : 'valid'}${i}@files.com`,
	)
	const listId = await insertEmails(me.accountId!, emails)
	const files = fakes.mv.files.size
	const before = fakes.mv.checks.length
	const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
	const run = await settledVerification(runId, 60_000)
	expect(run).toMatchObject({ status: 2, checked: 10_005, charged: 10_005, error: null })
	expect(run.bulk_report_file_id).toBeNull()
	expect(fakes.mv.files.size).toBe(files + 2)
	const counts = timesChecked(fakes.mv.checks.slice(before))
	expect(counts.size).toBe(10_005)
	expect([...counts.values()].every((n) => n === 1)).toBe(true)
	const leads = await statusesOf(listId)
	expect(leads.get('invalid10000@files.com')?.verify_status).toBe('invalid')
	expect(leads.get('valid10004@files.com')?.verify_status).toBe('valid')
	expect(await getCreditBalance(me.accountId!)).toBe(20_000 - 10_005)
}, 90_000)

test('no bulk file API (404): the run checks each email singly, once, and its summary says so', async () => {
	fakes.mv.bulkUnsupported(true)
	try {
		const me = await accountWithCredits(100)
		const emails = EMAILS.map((e) => e.replace('@bulk.com', '@nobulk.com'))
		const listId = await insertEmails(me.accountId!, emails)
		const before = fakes.mv.checks.length
		const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
		expect(await settledVerification(runId)).toMatchObject({ status: 2, checked: 7, charged: 5 })
		const counts = timesChecked(fakes.mv.checks.slice(before))
		expect([...counts.keys()].sort()).toEqual([...emails].sort())
		expect([...counts.values()].every((n) => n === 1)).toBe(true)
		// the person reads why the run took the slow way, once
		expect((await listVerifications(me, listId))[0]!.notes).toEqual([
			"MillionVerifier's bulk service wasn't available, so the emails were checked one by one (the same price, only slower).",
		])
	} finally {
		fakes.mv.bulkUnsupported(false)
	}
})

test('the file refused for no credits (HTTP 200, an error body): every email unknown, refunded, and a message saying why', async () => {
	fakes.mv.setOutOfCredits(true)
	try {
		const me = await accountWithCredits(100)
		const emails = EMAILS.map((e) => e.replace('@bulk.com', '@nocredit.com'))
		const listId = await insertEmails(me.accountId!, emails)
		const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
		const run = await settledVerification(runId)
		expect(run).toMatchObject({ status: 3, charged: 0 })
		expect(run.error).toMatch(/MillionVerifier account has no credits left/)
		const leads = await statusesOf(listId)
		expect([...leads.values()].every((l) => l.verify_status === 'unknown')).toBe(true)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	} finally {
		fakes.mv.setOutOfCredits(false)
	}
})

test('file statuses that are garbage (a proxy page, HTTP 200) are asked again: every email answered once', async () => {
	fakes.mv.setBulkRate(2)
	try {
		const me = await accountWithCredits(100)
		const emails = EMAILS.map((e) => e.replace('@bulk.com', '@flaky.com'))
		const listId = await insertEmails(me.accountId!, emails)
		const files = fakes.mv.files.size
		const before = fakes.mv.checks.length
		const { runId } = await startVerification(me, { listId, payWith: 'credits', only: 'all' })
		await expect.poll(() => fakes.mv.files.size, { timeout: 20_000 }).toBe(files + 1)
		fakes.mv.malformedNext(3)
		expect(await settledVerification(runId, 40_000)).toMatchObject({
			status: 2,
			checked: 7,
			charged: 5,
			error: null,
		})
		const counts = timesChecked(fakes.mv.checks.slice(before))
		expect([...counts.keys()].sort()).toEqual([...emails].sort())
		expect([...counts.values()].every((n) => n === 1)).toBe(true)
		expect(await getCreditBalance(me.accountId!)).toBe(95)
	} finally {
		fakes.mv.setBulkRate(Infinity)
	}
}, 60_000)
