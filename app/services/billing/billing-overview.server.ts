import { isOwner, type AccountContext } from '../../context.server.ts'
import { db } from '../../../db/index.server.ts'
import { formatCents, formatDate } from '../../utils/money.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import { findBillingOwnerEmail } from './access.server.ts'
import { getCreditHistory } from './credit-history.server.ts'
import { getCreditBalance } from './credits.server.ts'
import { listOfferedCreditPacks } from './credit-pack-prices.server.ts'
import { paymentProvider } from './payments.server.ts'
import { listPricePlans } from './plans.server.ts'
import { findCurrentSubscription, isActive } from './subscriptions.server.ts'

/** What everyone sees on a billing screen: who manages billing and how payments run. */
async function billingHeader(account: AccountContext) {
	const owner = isOwner(account)
	const provider = paymentProvider()
	return {
		isOwner: owner,
		ownerEmail: owner ? account.user.email : await findBillingOwnerEmail(db, account.accountId!),
		testMode: provider === 'test',
		paymentsAvailable: provider !== null,
		isPlatformAdmin: account.isAdmin,
	}
}

/** A checkout the owner just came back from (Stripe's success_url carries its id). */
async function returningCheckout(account: AccountContext, checkoutId: string | null) {
	if (!checkoutId || !isUuid(checkoutId) || !isOwner(account)) return null
	const row = await db
		.selectFrom('checkout_sessions')
		.select(['status', 'mode'])
		.where('id', '=', checkoutId)
		.where('user_id', '=', account.accountId!)
		.executeTakeFirst()
	return row ?? null
}

/** /subscription: the plans, the current plan and what the owner may do with it. */
export async function getSubscriptionOverview(
	account: AccountContext,
	options: { checkoutId?: string | null } = {},
) {
	const accountId = account.accountId!
	const [header, plans, current, checkout] = await Promise.all([
		billingHeader(account),
		listPricePlans(),
		findCurrentSubscription(accountId),
		returningCheckout(account, options.checkoutId ?? null),
	])
	const plan = current ? plans.find((p) => p.id === current.active_plan) : undefined
	const active = isActive(current)
	return {
		...header,
		isLTD: account.isLTD,
		plans: plans.map((p) => ({
			id: p.id,
			name: p.name,
			interval: p.interval,
			tier: p.tier,
			price: formatCents(p.price_cents),
			monthlyCredits: p.monthly_credits,
		})),
		current:
			current && plan
				? {
						planId: plan.id,
						planName: plan.name,
						price: formatCents(plan.price_cents),
						interval: plan.interval,
						status: active ? 'active' : current.status === 'active' ? 'expired' : current.status,
						active,
						billingDate: formatDate(current.billing_date),
						expireDate: formatDate(current.expire_date),
						cancelAtPeriodEnd: current.cancel_at_period_end,
					}
				: null,
		checkout,
	}
}

/** /purchase: the packs, the balance and a page of the credit history (the URL's). */
export async function getPurchaseOverview(account: AccountContext, search: URLSearchParams) {
	const accountId = account.accountId!
	const owner = isOwner(account)
	const [header, balance, history, packs] = await Promise.all([
		billingHeader(account),
		getCreditBalance(accountId),
		owner ? getCreditHistory(accountId, search) : Promise.resolve(null),
		listOfferedCreditPacks(),
	])
	return {
		...header,
		balance,
		packs: packs.map((p) => ({
			credits: p.credits,
			price: formatCents(p.priceCents),
			perThousand: formatCents(Math.round((p.priceCents * 1000) / p.credits)),
		})),
		history,
	}
}
