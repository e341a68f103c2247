import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { ledgerOf } from '../../../tests/support/billing.ts'
import {
	commitCredits,
	getCreditBalance,
	grantCredits,
	InsufficientCreditsError,
	listCreditLedger,
	releaseCredits,
	reserveCredits,
} from './credits.server.ts'

describe('the credits ledger', () => {
	test('a grant appends a ledger row and moves the balance with it', async () => {
		const user = await insertUser(db)
		const first = await grantCredits(db, { accountId: user.id, amount: 500, reason: 'admin' })
		const second = await grantCredits(db, { accountId: user.id, amount: 250, reason: 'admin' })
		expect(first).toEqual({ applied: true, balance: 500 })
		expect(second).toEqual({ applied: true, balance: 750 })
		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(750)
		expect(entries.map((e) => [e.delta, e.balance_after])).toEqual([
			[500, 500],
			[250, 750],
		])
	})

	test('a grant with a reference happens once', async () => {
		const user = await insertUser(db)
		const grant = { accountId: user.id, amount: 100, reason: 'purchase' as const, reference: 'x1' }
		await grantCredits(db, grant)
		const again = await grantCredits(db, grant)
		const parallel = await Promise.all([grantCredits(db, grant), grantCredits(db, grant)])
		expect(again).toEqual({ applied: false, balance: 100 })
		expect(parallel.every((r) => !r.applied)).toBe(true)
		expect(await getCreditBalance(user.id)).toBe(100)
	})

	test('amounts are positive whole numbers', async () => {
		const user = await insertUser(db)
		for (const amount of [0, -5, 1.5, Number.NaN, 2 ** 60]) {
			expect(() => grantCredits(db, { accountId: user.id, amount, reason: 'admin' })).toThrow(
				RangeError,
			)
			expect(() => reserveCredits(db, { accountId: user.id, amount, reference: 'r' })).toThrow(
				RangeError,
			)
		}
		expect((await ledgerOf(user.id)).entries).toHaveLength(0)
	})

	test('reserve holds credits; commit refunds the unused part, once', async () => {
		const user = await insertUser(db)
		await grantCredits(db, { accountId: user.id, amount: 1000, reason: 'admin' })
		const reservation = await reserveCredits(db, {
			accountId: user.id,
			amount: 300,
			reference: 'lead-scrape:list-1',
		})
		expect(reservation).toMatchObject({ amount: 300, status: 'held' })
		expect(await getCreditBalance(user.id)).toBe(700)

		// a retried enqueue reserves once
		await reserveCredits(db, { accountId: user.id, amount: 300, reference: 'lead-scrape:list-1' })
		expect(await getCreditBalance(user.id)).toBe(700)

		const settled = await commitCredits(db, {
			accountId: user.id,
			reference: 'lead-scrape:list-1',
			used: 120,
		})
		expect(settled).toEqual({ refunded: 180, balance: 880, alreadySettled: false })
		const again = await commitCredits(db, {
			accountId: user.id,
			reference: 'lead-scrape:list-1',
			used: 0,
		})
		expect(again.alreadySettled).toBe(true)
		expect(await getCreditBalance(user.id)).toBe(880)

		const { entries } = await ledgerOf(user.id)
		expect(entries.map((e) => [e.reason, e.delta, e.reference])).toEqual([
			['admin', 1000, null],
			['reservation', -300, 'lead-scrape:list-1'],
			['refund', 180, 'lead-scrape:list-1'],
		])
	})

	test('release gives everything back; using more than reserved is refused', async () => {
		const user = await insertUser(db)
		await grantCredits(db, { accountId: user.id, amount: 50, reason: 'admin' })
		await reserveCredits(db, { accountId: user.id, amount: 50, reference: 'job-1' })
		await expect(
			commitCredits(db, { accountId: user.id, reference: 'job-1', used: 51 }),
		).rejects.toThrow(RangeError)
		expect(await releaseCredits(db, { accountId: user.id, reference: 'job-1' })).toMatchObject({
			refunded: 50,
			balance: 50,
		})
		await expect(
			commitCredits(db, { accountId: user.id, reference: 'no-such-job', used: 0 }),
		).rejects.toThrow(/No credit reservation/)
	})

	test('a short balance fails cleanly with a typed error and writes nothing', async () => {
		const user = await insertUser(db)
		await grantCredits(db, { accountId: user.id, amount: 40, reason: 'admin' })
		const error = await reserveCredits(db, {
			accountId: user.id,
			amount: 41,
			reference: 'too-big',
		}).catch((e: unknown) => e)
		expect(error).toBeInstanceOf(InsufficientCreditsError)
		expect(error).toMatchObject({ needed: 41, available: 40 })
		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(40)
		expect(entries).toHaveLength(1)
		const held = await db
			.selectFrom('credit_reservations')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()
		expect(held).toHaveLength(0)
	})

	test('two parallel reservations of the last credits: exactly one gets through', async () => {
		const user = await insertUser(db)
		await grantCredits(db, { accountId: user.id, amount: 100, reason: 'admin' })
		for (let round = 0; round < 5; round++) {
			const results = await Promise.allSettled([
				reserveCredits(db, { accountId: user.id, amount: 100, reference: `a-${round}` }),
				reserveCredits(db, { accountId: user.id, amount: 100, reference: `b-${round}` }),
			])
			const ok = results.filter((r) => r.status === 'fulfilled')
			const failed = results.filter((r) => r.status === 'rejected')
			expect(ok).toHaveLength(1)
			expect(failed).toHaveLength(1)
			expect((failed[0] as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientCreditsError)
			expect(await getCreditBalance(user.id)).toBe(0)
			const reference = (ok[0] as PromiseFulfilledResult<{ reference: string }>).value.reference
			await releaseCredits(db, { accountId: user.id, reference })
		}
		const { entries, balance } = await ledgerOf(user.id)
		expect(balance).toBe(100)
		// each ledger row's balance_after chains from the previous one
		let running = 0
		for (const entry of entries) {
			running += entry.delta
			expect(entry.balance_after).toBe(running)
		}
	})

	test('the ledger lists the newest entries first, for that account only', async () => {
		const user = await insertUser(db)
		const other = await insertUser(db)
		await grantCredits(db, { accountId: user.id, amount: 10, reason: 'admin' })
		await grantCredits(db, { accountId: user.id, amount: 20, reason: 'purchase', reference: 'p' })
		await grantCredits(db, { accountId: other.id, amount: 99, reason: 'admin' })
		const ledger = await listCreditLedger(user.id)
		expect(ledger.map((e) => e.delta)).toEqual([20, 10])
	})
})
