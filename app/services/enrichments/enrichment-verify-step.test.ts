import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { timesChecked } from '../../../tests/fakes/verify-outcomes.ts'
import { fakeOpenAIAndWorkers, settledRun } from '../../../tests/support/enrichment.ts'
import { accountWithCredits, withProviderKey } from '../../../tests/support/jobs.ts'
import type { AccountContext } from '../../context.server.ts'
import { startVerifyFakes, type VerifyFakes } from '../../../tests/support/verification.ts'
import { getCreditHistory } from '../billing/credit-history.server.ts'
import { getCreditBalance, listCreditLedger } from '../billing/credits.server.ts'
import { settleRunCredits } from './run-enrichment.server.ts'
import { createChain, createEnrichment, listChains, updateChain } from './enrichments.server.ts'
import { ChainFormSchema } from './schemas.ts'
import { startRun } from './start-enrichment.server.ts'

// Issue 35 point 5: a "Verify email" step in a chain makes a waterfall of email finders stop at
// the first email that verifies; the chain's catch-all policy says whether catch-all counts.
const started = fakeOpenAIAndWorkers()
let fakes: VerifyFakes
beforeAll(async () => {
	fakes = await startVerifyFakes()
})
afterAll(async () => {
	await Promise.all([fakes.mv.close(), fakes.zb.close(), fakes.reacher.close()])
})
beforeEach(() => started.openai.reset())

// the fakes answer by the start of the address: first names make the guessed email's outcome
const FIRST_NAMES = ['valid', 'catchall', 'invalid', 'unknown']

async function leads(accountId: string, firstNames = FIRST_NAMES) {
	const list = await db
		.insertInto('processing_list')
		.values({
			user_id: accountId,
			name: 'List',
			source_type: 'upload',
			status: 2,
			found: firstNames.length,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('leads')
		.values(
			firstNames.map((first, i) => ({
				list_id: list.id,
				user_id: accountId,
				email: `person${i}@example.com`,
				first_name: first,
				last_name: `p${i}`,
				company_name: `Acme ${i}`,
				company_domain: 'acme.com',
			})),
		)
		.execute()
	return list.id
}

/** A chain that guesses a work email and verifies it. */
const guessAndVerify = (me: AccountContext, name = 'Guess and verify') =>
	createChain(me, {
		name,
		steps: [
			{ kind: 'email-guess', outputColumn: 'work_email' },
			{ kind: 'verify-email', outputColumn: 'work_email' },
		],
	})

/** Each of the four leads' guesses was asked of the provider once since `before`. */
function expectEachGuessCheckedOnce(before: number) {
	const checked = timesChecked(fakes.mv.checks.slice(before))
	expect([...checked.keys()].sort()).toEqual([
		'catchall.p1@acme.com',
		'invalid.p2@acme.com',
		'unknown.p3@acme.com',
		'valid.p0@acme.com',
	])
	expect([...checked.values()].every((n) => n === 1)).toBe(true)
}

const workEmails = async (runId: string) => {
	const rows = await db
		.selectFrom('enrichment_run_rows as r')
		.innerJoin('leads as l', 'l.id', 'r.lead_id')
		.select(['l.first_name', 'l.data'])
		.where('r.run_id', '=', runId)
		.execute()
	return Object.fromEntries(
		rows.map((r) => {
			const data = r.data as Record<string, string | undefined>
			return [r.first_name, { email: data.work_email, status: data.work_email_status }]
		}),
	)
}

test('a waterfall stops at the first email that verifies; "only safe to send" lets the next finder run on catch-all, "accept catch-all" keeps it', async () => {
	const me = await withProviderKey(
		await accountWithCredits(100),
		'millionverifier',
		fakes.mv.apiKey,
	)
	const listId = await leads(me.accountId!)
	const fallback = await createEnrichment(me, {
		name: 'Fallback finder',
		prompt: 'Find the email of {{first_name}}',
		outputColumn: 'work_email',
		outputFormat: 'text',
		model: 'gpt-4o-mini',
		temperature: 0,
	})
	const chain = await createChain(me, {
		name: 'Email waterfall',
		steps: [
			{ kind: 'email-guess', outputColumn: 'work_email' },
			{ kind: 'verify-email', outputColumn: 'work_email' },
			{ kind: 'ai', enrichmentId: fallback.id },
		],
	})
	// the default policy: only safe to send
	expect((await listChains(me))[0]).toMatchObject({ catchAll: 'safe' })

	const before = fakes.mv.checks.length
	const { runId } = await startRun(me, { listId, target: `chain:${chain.id}`, payWith: 'credits' })
	expect((await settledRun(runId)).status).toBe(2)
	const safe = await workEmails(runId)
	// the guess verified: kept, and the next finder did not run for it
	expect(safe.valid).toEqual({ email: 'valid.p0@acme.com', status: 'valid' })
	// catch-all, invalid and unknown guesses are not verified: the next finder ran
	for (const first of ['catchall', 'invalid', 'unknown'])
		expect(safe[first]!.email).toMatch(/^AI\(gpt-4o-mini\): Find the email of /)
	expect(safe.catchall!.status).toBe('catch_all')
	expect(safe.invalid!.status).toBe('invalid')
	expect(started.openai.calls).toHaveLength(3)
	// each guess checked once at the provider, with the account's own key: no credits for it
	expectEachGuessCheckedOnce(before)
	expect(await getCreditBalance(me.accountId!)).toBe(97)

	// accept catch-all: the catch-all guess is kept; cached answers are not asked again
	await updateChain(me, chain.id, {
		name: 'Email waterfall',
		catchAll: 'accept',
		steps: [
			{ kind: 'email-guess', outputColumn: 'work_email' },
			{ kind: 'verify-email', outputColumn: 'work_email' },
			{ kind: 'ai', enrichmentId: fallback.id },
		],
	})
	await db.updateTable('leads').set({ data: '{}' }).where('list_id', '=', listId).execute()
	started.openai.reset()
	const again = await startRun(me, { listId, target: `chain:${chain.id}`, payWith: 'credits' })
	expect((await settledRun(again.runId)).status).toBe(2)
	const accept = await workEmails(again.runId)
	expect(accept.catchall).toEqual({ email: 'catchall.p1@acme.com', status: 'catch_all' })
	expect(accept.valid!.email).toBe('valid.p0@acme.com')
	expect(accept.invalid!.email).toMatch(/^AI\(/)
	// unknown is never "verified", whatever the policy
	expect(accept.unknown!.email).toMatch(/^AI\(/)
	// the answers of the first run were reused (unknown is not kept, so it was asked again)
	expect(timesChecked(fakes.mv.checks.slice(before)).get('catchall.p1@acme.com')).toBe(1)
	expect(timesChecked(fakes.mv.checks.slice(before)).get('unknown.p3@acme.com')).toBe(2)
})

test('paid with credits: without its own key the step uses the platform key; only definitive answers are charged, the rest refunded once, and the ledger says it was email verification', async () => {
	const me = await accountWithCredits(100)
	const listId = await leads(me.accountId!)
	const chain = await guessAndVerify(me)
	const before = fakes.mv.checks.length
	const { runId, estimate } = await startRun(me, {
		listId,
		target: `chain:${chain.id}`,
		payWith: 'credits',
	})
	// the hold: a verification per lead (no AI step)
	expect(estimate).toMatchObject({ credits: 4, verifyCredits: 4 })
	expect(await getCreditBalance(me.accountId!)).toBe(96)
	expect((await settledRun(runId)).status).toBe(2)
	const emails = await workEmails(runId)
	expect(emails.valid).toEqual({ email: 'valid.p0@acme.com', status: 'valid' })
	expect(emails.catchall!.status).toBe('catch_all')
	// each guess asked once, with the platform's key (the fake knows no other)
	expectEachGuessCheckedOnce(before)
	// valid and invalid are charged; catch-all and unknown come back
	expect(await getCreditBalance(me.accountId!)).toBe(98)
	const ledger = await listCreditLedger(me.accountId!)
	const lines = ledger.filter((l) => l.reference === `enrich-verify:${runId}:1`)
	expect(lines.map((l) => l.delta).sort()).toEqual([-4, 2])
	const history = await getCreditHistory(me.accountId!, new URLSearchParams())
	const labels = history.lines
		.filter((l) => l.subject?.label.startsWith('Email verification in enrichment'))
		.map((l) => l.delta)
	expect(labels.sort()).toEqual([-4, 2])
	// the run's settlement is once: settling it again moves nothing
	const run = await db
		.selectFrom('enrichment_runs')
		.selectAll()
		.where('id', '=', runId)
		.executeTakeFirstOrThrow()
	await db.transaction().execute((trx) => settleRunCredits({ ...run, source: 'leads' }, trx, false))
	expect(await getCreditBalance(me.accountId!)).toBe(98)
})

test('paid with credits, faults: a garbage answer makes the email unknown and free; the provider out of credits stops the run saying so, nothing charged', async () => {
	const me = await accountWithCredits(100)
	const listId = await leads(me.accountId!, ['valid'])
	const chain = await guessAndVerify(me)
	// a proxy's HTML page (HTTP 200) for the check and its one retry
	fakes.mv.malformedNext(2)
	const garbage = await startRun(me, {
		listId,
		target: `chain:${chain.id}`,
		payWith: 'credits',
	})
	expect((await settledRun(garbage.runId)).status).toBe(2)
	const [row] = await db.selectFrom('leads').select('data').where('list_id', '=', listId).execute()
	expect((row!.data as Record<string, string>).work_email_status).toBe('unknown')
	expect(await getCreditBalance(me.accountId!)).toBe(100)

	fakes.mv.setOutOfCredits(true)
	try {
		await db.deleteFrom('email_checks').where('user_id', '=', me.accountId!).execute()
		const noCredits = await startRun(me, {
			listId,
			target: `chain:${chain.id}`,
			payWith: 'credits',
		})
		const run = await settledRun(noCredits.runId)
		expect(run.status).toBe(3)
		expect(run.error).toMatch(
			/Email verification is not available right now .*no credits left.*not charged/,
		)
		expect(await getCreditBalance(me.accountId!)).toBe(100)
	} finally {
		fakes.mv.setOutOfCredits(false)
	}
})

test('a chain with a Verify email step needs a verification key or credits; its policy is checked', async () => {
	const me = await accountWithCredits(100)
	const listId = await leads(me.accountId!)
	const chain = await guessAndVerify(me, 'Verify only')
	await expect(
		startRun(me, { listId, target: `chain:${chain.id}`, payWith: 'ownKey' }),
	).rejects.toMatchObject({ field: 'target', message: expect.stringMatching(/verification key/) })
	// a policy that is not one of the two is refused at the field
	const bad = ChainFormSchema.safeParse({
		intent: 'create-chain',
		name: 'Bad',
		catchAll: 'maybe',
		steps: [{ kind: 'verify-email' }],
	})
	expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['catchAll'])
	expect(
		await db.selectFrom('enrichment_runs').select('id').where('list_id', '=', listId).execute(),
	).toEqual([])
})
