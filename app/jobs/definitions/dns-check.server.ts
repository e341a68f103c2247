import { defineJob } from '../define.server.ts'
import { jobPayloads } from '../payloads.ts'
import { runDnsChecks } from '../../services/domains/dns-check.server.ts'

/** DESIGN.md section 7's dns-check queue: MX, SPF, DMARC and forwarding of up to 100 domains. */
export const dnsCheckJob = defineJob({
	name: 'dns-check',
	schema: jobPayloads['dns-check'],
	retryLimit: 2,
	retryDelaySeconds: 30,
	expireInSeconds: 900,
	async handler({ domainIds }) {
		await runDnsChecks(domainIds)
	},
})
