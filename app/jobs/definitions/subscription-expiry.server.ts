import {
	expireSubscriptions,
	grantDuePlanCredits,
} from '../../services/billing/expire-subscriptions.server.ts'
import { refundOwedCheckouts } from '../../services/billing/refunds.server.ts'
import { renewTestDomainSubscriptions } from '../../services/domains/renewals.server.ts'
import { expireDomainSubscriptions } from '../../services/domains/subscriptions.server.ts'
import {
	deferUnfulfilledStripeOrders,
	endCancelledInboxes,
	reconcileStripeQuantities,
	renewTestInboxOrders,
} from '../../services/inboxes/billing.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'

/**
 * DESIGN.md section 7's subscription-renewal queue, every five minutes: ends
 * subscriptions past their expire_date (the next request sees no plan), grants
 * the monthly credits of longer plans, renews test-mode domain subscriptions and
 * inbox orders (Stripe renews its own through the webhook), ends what is past
 * its period, and ends inboxes cancelled at period end. Inbox orders not yet
 * fulfilled are never renewed: test mode skips them, and a Stripe one's next
 * charge moves on before it comes (decision 0018). Stripe refunds still owed for
 * checkouts paid twice are retried (decision 0064). All idempotent.
 */
export const subscriptionExpiryJob = defineJob({
	name: 'subscription-renewal',
	schema: jobPayloads['subscription-renewal'],
	concurrency: 1,
	retryLimit: 2,
	expireInSeconds: 300,
	schedule: { cron: '*/5 * * * *', data: {} },
	async handler() {
		const now = new Date()
		const expired = await expireSubscriptions(now)
		const granted = await grantDuePlanCredits(now)
		// Test mode renews first, so only cancelled or unpaid domain subscriptions expire: the
		// domain then loses forwarding and inbox orders.
		const domainsRenewed = await renewTestDomainSubscriptions(now)
		const domains = await expireDomainSubscriptions(now)
		// Inboxes cancelled at period end end before their order renews without them.
		const inboxesEnded = await endCancelledInboxes(now)
		const ordersRenewed = await renewTestInboxOrders(now)
		const ordersDeferred = await deferUnfulfilledStripeOrders(now)
		const quantities = await reconcileStripeQuantities()
		// Stripe refunds of checkouts paid twice that the webhook could not get (decision 0064)
		const refunds = await refundOwedCheckouts()
		const counts = {
			expired: expired.length,
			granted,
			domainsRenewed: domainsRenewed.length,
			domains: domains.length,
			inboxesEnded: inboxesEnded.length,
			ordersRenewed: ordersRenewed.length,
			ordersDeferred: ordersDeferred.length,
			quantities,
			refunds,
		}
		if (Object.values(counts).some(Boolean)) {
			logger.info(counts, 'subscriptions renewed and expired')
		}
	},
})
