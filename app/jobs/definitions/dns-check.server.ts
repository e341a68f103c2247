import { z } from 'zod'
import { defineJob } from '../define.server.ts'

/** DESIGN.md section 7's dns-check queue: MX, SPF, DMARC and forwarding of up to 100 domains. */
export const dnsCheckJob = defineJob({
	name: 'dns-check',
	schema: z.object({ domainIds: z.array(z.uuid()).min(1).max(100) }),
	retryLimit: 2,
	retryDelaySeconds: 30,
	expireInSeconds: 900,
	async handler({ domainIds }) {
		const { runDnsChecks } = await import('../../services/domains/dns-check.server.ts')
		await runDnsChecks(domainIds)
	},
})
