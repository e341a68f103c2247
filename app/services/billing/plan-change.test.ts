import { describe, expect, test } from 'vitest'
import { prorate } from './plan-change.ts'

const starter = { name: 'Monthly Starter', interval: 'month', price_cents: 4900 }
const unlimited = { name: 'Monthly Unlimited', interval: 'month', price_cents: 9900 }
const yearly = { name: 'Yearly Starter', interval: 'year', price_cents: 47000 }
const june = {
	billingDate: new Date('2026-06-01T00:00:00Z'),
	expireDate: new Date('2026-07-01T00:00:00Z'),
}

describe('plan switch proration (as Stripe prorates)', () => {
	test('an upgrade halfway through the month: the unused half is credited against the new plan', () => {
		const p = prorate({ plan: starter, ...june }, unlimited, new Date('2026-06-16T00:00:00Z'))
		expect(p.unusedShare).toBe(0.5)
		expect(p).toMatchObject({ creditCents: 2450, chargeCents: 4950, dueNowCents: 2500 })
		// same interval: the renewal date stays
		expect(p.periodEnd).toEqual(june.expireDate)
		expect(p.keepsRenewalDate).toBe(true)
	})

	test('a downgrade leaves a credit, nothing due', () => {
		const p = prorate({ plan: unlimited, ...june }, starter, new Date('2026-06-16T00:00:00Z'))
		expect(p.dueNowCents).toBe(-2500)
	})

	test('monthly to yearly starts a new year now, the new plan in full less the unused month', () => {
		const now = new Date('2026-06-25T00:00:00Z')
		const p = prorate({ plan: starter, ...june }, yearly, now)
		expect(p.creditCents).toBe(Math.round(4900 * 0.2))
		expect(p).toMatchObject({ chargeCents: 47000, dueNowCents: 47000 - 980 })
		expect(p.periodStart).toEqual(now)
		expect(p.periodEnd).toEqual(new Date('2027-06-25T00:00:00Z'))
	})

	test('a period already over credits nothing', () => {
		const p = prorate({ plan: starter, ...june }, unlimited, new Date('2026-08-01T00:00:00Z'))
		expect(p).toMatchObject({ unusedShare: 0, creditCents: 0, chargeCents: 0, dueNowCents: 0 })
	})
})
