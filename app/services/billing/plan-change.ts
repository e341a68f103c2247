import { periodEnd } from './dates.ts'

type Plan = { name: string; interval: string; price_cents: number }

export type Proration = {
	/** the unused part of the current period, 0..1 */
	unusedShare: number
	/** the current plan's unused time, credited */
	creditCents: number
	/** the new plan for the rest of the current period (same interval) or a whole new period */
	chargeCents: number
	/** what the switch costs now: charge minus credit (negative: a credit left over) */
	dueNowCents: number
	/** the period the new plan runs in after the switch */
	periodStart: Date
	periodEnd: Date
	/** the same interval keeps the renewal date; another interval starts a new period now */
	keepsRenewalDate: boolean
}

/**
 * A plan switch priced as Stripe prorates it: the unused time of the current plan is credited,
 * and the new plan is charged for the rest of the period (a switch to another interval starts
 * a new period now, so the new plan is charged in full, less the credit). Cents round half up,
 * once per line, as Stripe's invoice lines do.
 */
export function prorate(
	current: { plan: Plan; billingDate: Date; expireDate: Date },
	next: Plan,
	now: Date,
): Proration {
	const length = current.expireDate.getTime() - current.billingDate.getTime()
	const left = current.expireDate.getTime() - now.getTime()
	const unusedShare = length > 0 ? Math.min(1, Math.max(0, left / length)) : 0
	const creditCents = Math.round(current.plan.price_cents * unusedShare)
	const keepsRenewalDate = current.plan.interval === next.interval
	const chargeCents = keepsRenewalDate
		? Math.round(next.price_cents * unusedShare)
		: next.price_cents
	return {
		unusedShare,
		creditCents,
		chargeCents,
		dueNowCents: chargeCents - creditCents,
		periodStart: keepsRenewalDate ? current.billingDate : now,
		periodEnd: keepsRenewalDate ? current.expireDate : periodEnd(now, next.interval),
		keepsRenewalDate,
	}
}
