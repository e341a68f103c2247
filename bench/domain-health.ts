// `npm run bench:domain-health`: the health checks of BENCH_DOMAINS (1,000) domains against the
// local DNS fake, with at most BENCH_CONCURRENCY (64, the job's bound) DNS queries in flight,
// against a bare loop that sends the same questions (each name and type the checks asked, in the
// same order) through a bare node:dns Resolver with the same bound and does nothing with the
// answers. Goal (issue 38): the checks take at most 1.3x the bare loop. Each side runs
// BENCH_ROUNDS (5) times, alternating which goes first (the machine is shared: its load comes and
// goes), and the best of each is compared.
import { Resolver } from 'node:dns/promises'
import { startFakeDns, type Zone } from '../tests/fakes/dns/server.ts'
import { checkDomains } from '../app/services/domain-health/checks.server.ts'
import { createDnsClient } from '../app/services/domain-health/dns.server.ts'

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

// a realistic mix: most healthy, some without DMARC, some over the SPF lookup limit, a few listed
const zone: Zone = {
	'_spf.google.com': { TXT: ['v=spf1 include:_netblocks.google.com ~all'] },
	'_netblocks.google.com': { TXT: ['v=spf1 ip4:35.190.247.0/24 ~all'] },
	'smtp.google.com': { A: ['142.250.27.26'] },
}
const names = Array.from({ length: DOMAINS }, (_, i) => `bench-${i}.test`)
names.forEach((name, i) => {
	zone[name] = {
		A: [`198.51.${Math.floor(i / 250)}.${i % 250}`],
		MX: [{ priority: 1, exchange: 'smtp.google.com' }],
		TXT: [
			i % 10 === 3
				? 'v=spf1 include:_spf.google.com a mx a:x mx:y a:z mx:w a:v mx:u a:t ~all'
				: 'v=spf1 include:_spf.google.com ~all',
		],
	}
	if (i % 7 !== 0) zone[`_dmarc.${name}`] = { TXT: [`v=DMARC1; p=none; rua=mailto:d@${name}`] }
	zone[`google._domainkey.${name}`] = { TXT: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0B'] }
	if (i % 50 === 0) zone[`${name}.dbl.spamhaus.org`] = { A: ['127.0.1.2'] }
})
const dns = await startFakeDns(zone)

async function checks() {
	const client = createDnsClient({ servers: [dns.server], concurrency: CONCURRENCY })
	const start = performance.now()
	const reports = (
		await checkDomains(
			client,
			names.map((name) => ({ name })),
			() => ({ provider: 'google' }),
		)
	).map((r) => r.report)
	const ms = performance.now() - start
	return { ms, client, failing: reports.filter((r) => r.status === 'failing').length }
}

async function bare(questions: { type: string; name: string }[]) {
	const resolver = new Resolver({ timeout: 1500, tries: 2 })
	resolver.setServers([dns.server])
	const start = performance.now()
	let next = 0
	await Promise.all(
		Array.from({ length: CONCURRENCY }, async () => {
			while (next < questions.length) {
				const { type, name } = questions[next++]!
				await resolver.resolve(name, type).catch(() => null)
			}
		}),
	)
	return performance.now() - start
}

try {
	// warm up both paths (JIT, sockets)
	const warm = await checks()
	await bare(warm.client.asked())
	let best = Infinity
	let bestBare = Infinity
	let last = warm
	for (let round = 0; round < ROUNDS; round++) {
		if (round % 2) bestBare = Math.min(bestBare, await bare(last.client.asked()))
		last = await checks()
		best = Math.min(best, last.ms)
		if (!(round % 2)) bestBare = Math.min(bestBare, await bare(last.client.asked()))
	}
	const ratio = best / bestBare
	console.log(
		[
			`domains: ${DOMAINS}, DNS queries per run: ${last.client.asked().length} (sent: ${last.client.sent()}), in flight at most ${last.client.peak()} (bound ${CONCURRENCY})`,
			`failing domains found: ${last.failing}`,
			`health checks: ${best.toFixed(0)} ms (best of ${ROUNDS})`,
			`bare loop, same queries: ${bestBare.toFixed(0)} ms (best of ${ROUNDS})`,
			`ratio: ${ratio.toFixed(2)}x (goal: at most 1.3x) ${ratio <= 1.3 ? 'OK' : 'OVER'}`,
		].join('\n'),
	)
	if (ratio > 1.3) process.exitCode = 1
} finally {
	await dns.close()
}
