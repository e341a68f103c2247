// Starts the production build for the browser tests on a clean embedded database.
// First: the web process's memory limits (decision 0029), before the fakes start in this process.
import '../../app/server/apply-memory-limits.server.ts'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { stopLeftoverServer } from '../../db/embedded.ts'

// a run that was killed may have left its PostgreSQL running on the folder we are about to empty
await stopLeftoverServer(path.resolve(process.env.DATA_DIR!, 'postgres'))
rmSync(process.env.DATA_DIR!, { recursive: true, force: true })
if (process.env.E2E_DNS_ZONE_DIR)
	rmSync(process.env.E2E_DNS_ZONE_DIR, { recursive: true, force: true })

// Outside services the app talks to, as local fakes.
const { startFakeApify } = await import('../fakes/apify/server.ts')
const apify = await startFakeApify({ port: Number(process.env.E2E_APIFY_PORT ?? 0) })
process.env.APIFY_BASE_URL = apify.url
process.env.APIFY_TOKEN = apify.token
const { startFakeApollo } = await import('../fakes/apollo/server.ts')
const apollo = await startFakeApollo({ port: Number(process.env.E2E_APOLLO_PORT ?? 0) })
process.env.APOLLO_BASE_URL = apollo.url
process.env.APOLLO_API_KEY = apollo.apiKey
const { startFakeMillionVerifier } = await import('../fakes/millionverifier/server.ts')
const millionVerifier = await startFakeMillionVerifier()
process.env.MILLIONVERIFIER_BASE_URL = millionVerifier.url
process.env.MILLIONVERIFIER_BULK_URL = millionVerifier.bulkUrl
process.env.MILLIONVERIFIER_API_KEY = millionVerifier.apiKey
const { startFakeOpenAI } = await import('../fakes/openai/server.ts')
const openai = await startFakeOpenAI({ port: Number(process.env.E2E_OPENAI_PORT ?? 0) })
process.env.OPENAI_BASE_URL = openai.url
process.env.OPENAI_API_KEY = openai.apiKey
const { startFakeIpCountry } = await import('../fakes/ip-country/server.ts')
const ipCountry = await startFakeIpCountry({ port: Number(process.env.E2E_IP_COUNTRY_PORT ?? 0) })
process.env.IP_COUNTRY_URL = ipCountry.url
// PostHog only when a test server asks for it (tests/e2e/analytics.spec.ts): E2E_POSTHOG=1.
if (process.env.E2E_POSTHOG === '1') {
	const { startFakePostHog } = await import('../fakes/posthog/server.ts')
	const posthog = await startFakePostHog({ port: Number(process.env.E2E_POSTHOG_PORT ?? 0) })
	process.env.POSTHOG_HOST = posthog.url
	process.env.POSTHOG_KEY = 'phc_e2e_test_key'
}
// DNS checks ask a local resolver that knows no names (records show as missing), except those
// a test publishes as files in DNS_ZONE_DIR (tests/e2e/domains-support.ts publishDns).
const { startFakeDns } = await import('../fakes/dns/server.ts')
const dns = await startFakeDns({}, { zoneDir: process.env.E2E_DNS_ZONE_DIR })
process.env.DNS_SERVERS = dns.server
// a throwaway database: speed over crash safety (the app itself never does this)
const { allowUnsafeFastWritesForTests } = await import('../../db/embedded.ts')
allowUnsafeFastWritesForTests()
await import('../../server.ts')
