import { z } from 'zod'
import {
	expireSubscriptions,
	grantDuePlanCredits,
} from '../../services/billing/expire-subscriptions.server.ts'
import { expireDomainSubscriptions } from '../../services/domains/subscriptions.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { defineJob } from '../define.server.ts'

/**
 * DESIGN.md section 7's subscription-renewal queue, every five minutes: ends
 * subscriptions past their expire_date (the next request sees no plan) and
 * grants the monthly credits of longer plans. Both are idempotent.
 */
export const subscriptionExpiryJob = defineJob({
	name: 'subscription-renewal',
	schema: z.object({}),
	concurrency: 1,
	retryLimit: 2,
	expireInSeconds: 300,
	schedule: { cron: '*/5 * * * *', data: {} },
	async handler() {
		const now = new Date()
		const expired = await expireSubscriptions(now)
		const granted = await grantDuePlanCredits(now)
		// Domain subscriptions past their period end: the domain loses forwarding and inbox orders.
		const domains = await expireDomainSubscriptions(now)
		if (expired.length || granted || domains.length) {
			logger.info(
				{ expired: expired.length, granted, domains: domains.length },
				'subscriptions renewed and expired',
			)
		}
	},
})
