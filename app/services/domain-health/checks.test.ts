import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startFakeDns, type Zone } from '../../../tests/fakes/dns/server.ts'
import { checkDomainHealth, type DomainContext } from './checks.server.ts'
import { createDnsClient } from './dns.server.ts'
import type { CheckKey } from './report.ts'

const GOOD = (name: string): Zone => ({
	[name]: {
		A: ['203.0.113.10'],
		MX: [{ priority: 1, exchange: 'smtp.google.com' }],
		TXT: ['v=spf1 include:_spf.google.com ~all'],
	},
	[`_dmarc.${name}`]: { TXT: [`v=DMARC1; p=quarantine; rua=mailto:dmarc@${name}`] },
	[`google._domainkey.${name}`]: { TXT: ['v=DKIM1; k=rsa; p=MIIBIjANBgkq'] },
})

let dns: Awaited<ReturnType<typeof startFakeDns>>

beforeAll(async () => {
	dns = await startFakeDns({
		'_spf.google.com': { TXT: ['v=spf1 include:_netblocks.google.com ~all'] },
		'_netblocks.google.com': { TXT: ['v=spf1 ip4:35.190.247.0/24 ~all'] },
		'smtp.google.com': { A: ['142.250.27.26'] },
		'spf.protection.outlook.com': { TXT: ['v=spf1 ip4:40.92.0.0/15 -all'] },
	})
})
afterAll(() => dns.close())

/** Publishes `zone` and checks `name` with a fresh client (no answers remembered). */
async function health(name: string, zone: Zone, ctx: DomainContext = { provider: 'google' }) {
	Object.assign(dns.zone, zone)
	const client = createDnsClient({
		servers: [dns.server],
		// long enough for a first answer on a busy machine, short for the timeout cases
		timeoutMs: 300,
		tries: 1,
		retryDelayMs: 10,
	})
	const report = await checkDomainHealth(client, name, ctx)
	const by = (key: CheckKey) => report.checks.find((c) => c.key === key)!
	return { report, by, client }
}

describe('a healthy domain', () => {
	test('passes every check, grade A', async () => {
		const { report } = await health('good.test', GOOD('good.test'))
		expect(report.checks.map((c) => [c.key, c.status])).toEqual([
			['mx', 'pass'],
			['spf', 'pass'],
			['dkim', 'pass'],
			['dmarc', 'pass'],
			['domain-blocklists', 'pass'],
			['ip-blocklists', 'pass'],
		])
		expect(report).toMatchObject({ status: 'healthy', grade: 'A', score: 100 })
	})
})

describe('MX', () => {
	test('none: fail with the provider’s MX to add', async () => {
		const zone = GOOD('nomx.test')
		zone['nomx.test'] = { ...zone['nomx.test'], MX: [] }
		const { by } = await health('nomx.test', zone)
		expect(by('mx')).toMatchObject({
			status: 'fail',
			fix: { action: 'add', host: '@', type: 'MX', value: '1 smtp.google.com' },
		})
	})
	test('a null MX ("0 .") fails: the domain takes no mail', async () => {
		const zone = GOOD('nullmx.test')
		zone['nullmx.test'] = { ...zone['nullmx.test'], MX: [{ priority: 0, exchange: '.' }] }
		const { by } = await health('nullmx.test', zone)
		expect(by('mx').status).toBe('fail')
		expect(by('mx').summary).toMatch(/receives no mail/)
	})
	test('mail servers not at the inboxes’ provider warn, with the provider’s MX to set', async () => {
		const zone = GOOD('elsewhere.test')
		zone['elsewhere.test'] = {
			...zone['elsewhere.test'],
			MX: [{ priority: 10, exchange: 'mx.oldhost.example' }],
		}
		const { by } = await health('elsewhere.test', zone)
		expect(by('mx')).toMatchObject({
			status: 'warn',
			fix: { action: 'change', host: '@', type: 'MX', value: '1 smtp.google.com' },
		})
		expect(by('mx').summary).toMatch(/Google Workspace/)
		// Google's older MX hosts are Google's too
		const zone2 = GOOD('aspmx.test')
		zone2['aspmx.test'] = {
			...zone2['aspmx.test'],
			MX: [
				{ priority: 1, exchange: 'aspmx.l.google.com' },
				{ priority: 5, exchange: 'alt1.aspmx.l.google.com' },
			],
		}
		expect((await health('aspmx.test', zone2)).by('mx').status).toBe('pass')
	})
	test('SERVFAIL: could not check, never "missing"', async () => {
		const zone = GOOD('mxfail.test')
		zone['mxfail.test'] = { SERVFAIL: true }
		const { by, report } = await health('mxfail.test', zone)
		expect(by('mx').status).toBe('unknown')
		expect(by('mx').summary).toMatch(/Could not check/)
		expect(by('mx').fix).toBeUndefined()
		// the TXT lookup of the same name failed too: no false "no SPF record"
		expect(by('spf').status).toBe('unknown')
		expect(report.status).not.toBe('healthy')
	})
})

describe('SPF', () => {
	test('two SPF records fail, with one merged record to keep', async () => {
		const zone = GOOD('twospf.test')
		zone['twospf.test'] = {
			...zone['twospf.test'],
			TXT: ['v=spf1 include:_spf.google.com ~all', 'v=spf1 include:mailgun.org ~all'],
		}
		const { by } = await health('twospf.test', zone)
		expect(by('spf')).toMatchObject({
			status: 'fail',
			fix: {
				action: 'change',
				type: 'TXT',
				value: 'v=spf1 include:_spf.google.com include:mailgun.org ~all',
			},
		})
	})
	test('+all fails and the fix ends in ~all', async () => {
		const zone = GOOD('plusall.test')
		zone['plusall.test'] = { ...zone['plusall.test'], TXT: ['v=spf1 include:_spf.google.com +all'] }
		const { by } = await health('plusall.test', zone)
		expect(by('spf')).toMatchObject({
			status: 'fail',
			fix: { value: 'v=spf1 include:_spf.google.com ~all' },
		})
	})
	test('?all warns', async () => {
		const zone = GOOD('neutral.test')
		zone['neutral.test'] = { ...zone['neutral.test'], TXT: ['v=spf1 include:_spf.google.com ?all'] }
		const { by } = await health('neutral.test', zone)
		expect(by('spf').status).toBe('warn')
	})
	test('a chain of includes over 10 lookups fails', async () => {
		const zone = GOOD('chain.test')
		// 3 at the top, each include holds 3 more lookups: 3 + 3 * 3 = 12
		zone['chain.test'] = {
			...zone['chain.test'],
			TXT: ['v=spf1 include:_spf.google.com include:c1.chain.test include:c2.chain.test ~all'],
		}
		zone['c1.chain.test'] = { TXT: ['v=spf1 a mx include:c3.chain.test -all'] }
		zone['c2.chain.test'] = { TXT: ['v=spf1 a mx exists:x.chain.test -all'] }
		zone['c3.chain.test'] = { TXT: ['v=spf1 a mx ptr -all'] }
		const { by } = await health('chain.test', zone)
		expect(by('spf').status).toBe('fail')
		expect(by('spf').summary).toMatch(/more than 10 DNS lookups/)
	})
	test('exactly 10 lookups passes and says so', async () => {
		const zone = GOOD('ten.test')
		zone['ten.test'] = {
			...zone['ten.test'],
			// 1 + google's 1 + 8 = 10
			TXT: ['v=spf1 include:_spf.google.com a mx a:x.ten.test mx:y.ten.test a mx a mx ~all'],
		}
		const { by } = await health('ten.test', zone)
		expect(by('spf').status).toBe('pass')
		expect(by('spf').details).toContain('Lookups: 10 of 10')
	})
	test('a loop of includes fails', async () => {
		const zone = GOOD('loop.test')
		zone['loop.test'] = {
			...zone['loop.test'],
			TXT: ['v=spf1 include:_spf.google.com include:l1.loop.test ~all'],
		}
		zone['l1.loop.test'] = { TXT: ['v=spf1 include:l2.loop.test -all'] }
		zone['l2.loop.test'] = { TXT: ['v=spf1 include:l1.loop.test -all'] }
		const { by } = await health('loop.test', zone)
		expect(by('spf').status).toBe('fail')
		expect(by('spf').summary).toMatch(/loop.*l1\.loop\.test → l2\.loop\.test → l1\.loop\.test/)
	})
	test('missing the inbox provider’s include fails with the record to publish', async () => {
		const { by } = await health('google.test', GOOD('google.test'), { provider: 'microsoft' })
		expect(by('spf')).toMatchObject({
			status: 'fail',
			fix: {
				action: 'change',
				host: '@',
				type: 'TXT',
				value: 'v=spf1 include:spf.protection.outlook.com include:_spf.google.com ~all',
			},
		})
	})
	test('no SPF: fail with a record to add', async () => {
		const zone = GOOD('nospf.test')
		zone['nospf.test'] = { ...zone['nospf.test'], TXT: ['google-site-verification=x'] }
		const { by } = await health('nospf.test', zone)
		expect(by('spf')).toMatchObject({
			status: 'fail',
			fix: { action: 'add', value: 'v=spf1 include:_spf.google.com ~all' },
		})
	})
	test('an included record that times out: could not check', async () => {
		const zone = GOOD('slowinc.test')
		zone['slowinc.test'] = {
			...zone['slowinc.test'],
			TXT: ['v=spf1 include:_spf.google.com include:slow.slowinc.test ~all'],
		}
		zone['slow.slowinc.test'] = { TIMEOUT: true }
		const { by } = await health('slowinc.test', zone)
		expect(by('spf').status).toBe('unknown')
	})
})

describe('DKIM', () => {
	test('Microsoft’s CNAME selectors pass', async () => {
		const zone = GOOD('ms.test')
		zone['ms.test'] = {
			...zone['ms.test'],
			TXT: ['v=spf1 include:spf.protection.outlook.com -all'],
		}
		zone['selector1._domainkey.ms.test'] = {
			CNAME: 'selector1-ms-test._domainkey.contoso.onmicrosoft.com',
		}
		const { by } = await health('ms.test', zone, { provider: 'microsoft' })
		expect(by('dkim').status).toBe('pass')
	})
	test('no key at the provider’s selector fails with the host to publish', async () => {
		const zone = GOOD('nodkim.test')
		delete zone['google._domainkey.nodkim.test']
		const { by } = await health('nodkim.test', zone)
		expect(by('dkim')).toMatchObject({
			status: 'fail',
			fix: { host: 'google._domainkey', type: 'TXT' },
		})
	})
	test('a recorded selector is the one checked', async () => {
		const zone = GOOD('sel.test')
		zone['s2024._domainkey.sel.test'] = { TXT: ['v=DKIM1; k=rsa; p=ABC'] }
		delete zone['google._domainkey.sel.test']
		const { by } = await health('sel.test', zone, { provider: 'google', dkimSelector: 's2024' })
		expect(by('dkim').status).toBe('pass')
	})
	test('unknown selector and provider: a warning, never a failure', async () => {
		const { by } = await health('nosel.test', GOOD('nosel.test'), {})
		expect(by('dkim').status).toBe('warn')
	})
	test('a revoked (empty) key fails', async () => {
		const zone = GOOD('revoked.test')
		zone['google._domainkey.revoked.test'] = { TXT: ['v=DKIM1; k=rsa; p='] }
		const { by } = await health('revoked.test', zone)
		expect(by('dkim').status).toBe('fail')
		expect(by('dkim').summary).toMatch(/revoked/)
	})
	test('a timeout: could not check', async () => {
		const zone = GOOD('dkimslow.test')
		zone['google._domainkey.dkimslow.test'] = { TIMEOUT: true }
		const { by } = await health('dkimslow.test', zone)
		expect(by('dkim').status).toBe('unknown')
	})
})

describe('DMARC', () => {
	test('missing: fail with the record to add', async () => {
		const zone = GOOD('nodmarc.test')
		delete zone['_dmarc.nodmarc.test']
		const { by } = await health('nodmarc.test', zone)
		expect(by('dmarc')).toMatchObject({
			status: 'fail',
			fix: {
				action: 'add',
				host: '_dmarc',
				type: 'TXT',
				value: 'v=DMARC1; p=none; rua=mailto:dmarc@nodmarc.test',
			},
		})
	})
	test('no reporting address: a warning', async () => {
		const zone = GOOD('norua.test')
		zone['_dmarc.norua.test'] = { TXT: ['v=DMARC1; p=none'] }
		const { by } = await health('norua.test', zone)
		expect(by('dmarc')).toMatchObject({
			status: 'warn',
			fix: { value: 'v=DMARC1; p=none; rua=mailto:dmarc@norua.test' },
		})
	})
	test('no valid policy, or two records, fail', async () => {
		const zone = GOOD('badpolicy.test')
		zone['_dmarc.badpolicy.test'] = { TXT: ['v=DMARC1; p=block; rua=mailto:d@badpolicy.test'] }
		expect((await health('badpolicy.test', zone)).by('dmarc').status).toBe('fail')
		const zone2 = GOOD('twodmarc.test')
		zone2['_dmarc.twodmarc.test'] = { TXT: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] }
		expect((await health('twodmarc.test', zone2)).by('dmarc').summary).toMatch(/several/)
	})
	test('SERVFAIL: could not check', async () => {
		const zone = GOOD('dmarcfail.test')
		zone['_dmarc.dmarcfail.test'] = { SERVFAIL: true }
		const { by } = await health('dmarcfail.test', zone)
		expect(by('dmarc').status).toBe('unknown')
	})
})

describe('block lists', () => {
	test('a domain listed on the Spamhaus DBL fails', async () => {
		const zone = GOOD('spammy.test')
		zone['spammy.test.dbl.spamhaus.org'] = { A: ['127.0.1.2'] }
		const { by, report } = await health('spammy.test', zone)
		expect(by('domain-blocklists').status).toBe('fail')
		expect(by('domain-blocklists').summary).toMatch(/Spamhaus DBL/)
		expect(report.status).toBe('failing')
	})
	test('a refused Spamhaus answer (127.255.255.254) is "not tested", never clean', async () => {
		const zone = GOOD('refused.test')
		zone['refused.test.dbl.spamhaus.org'] = { A: ['127.255.255.254'] }
		const { by, report } = await health('refused.test', zone)
		expect(by('domain-blocklists').status).toBe('unknown')
		expect(by('domain-blocklists').summary).toMatch(/Not tested: Spamhaus DBL/)
		expect(report.status).toBe('unknown')
	})
	test('URIBL’s 127.0.0.1 (refused) is not tested', async () => {
		const zone = GOOD('uribl.test')
		zone['uribl.test.multi.uribl.com'] = { A: ['127.0.0.1'] }
		const { by } = await health('uribl.test', zone)
		expect(by('domain-blocklists').details).toContain('URIBL: not tested')
	})
	test('a failed block list lookup is not tested', async () => {
		const zone = GOOD('surblfail.test')
		zone['surblfail.test.multi.surbl.org'] = { SERVFAIL: true }
		const { by } = await health('surblfail.test', zone)
		expect(by('domain-blocklists').status).toBe('unknown')
	})
	test('an MX address on Spamhaus ZEN fails; a refused one is not tested', async () => {
		const zone = GOOD('badip.test')
		zone['badip.test'] = { ...zone['badip.test'], A: ['198.51.100.5'] }
		zone['5.100.51.198.zen.spamhaus.org'] = { A: ['127.0.0.2'] }
		const listed = await health('badip.test', zone)
		expect(listed.by('ip-blocklists').status).toBe('fail')
		expect(listed.by('ip-blocklists').summary).toMatch(/198\.51\.100\.5/)

		const zone2 = GOOD('refip.test')
		zone2['refip.test'] = { ...zone2['refip.test'], A: ['198.51.100.6'] }
		zone2['6.100.51.198.zen.spamhaus.org'] = { A: ['127.255.255.252'] }
		const refused = await health('refip.test', zone2)
		expect(refused.by('ip-blocklists').status).toBe('unknown')
	})
	test('an MX host whose address lookup fails is not tested, never clean', async () => {
		const zone = GOOD('mxhostfail.test')
		zone['mxhostfail.test'] = {
			...zone['mxhostfail.test'],
			MX: [{ priority: 1, exchange: 'mx.broken-host.test' }],
		}
		zone['mx.broken-host.test'] = { SERVFAIL: true }
		const { by } = await health('mxhostfail.test', zone, {})
		// the domain's own address was checked and is clean; the mail server's could not be
		expect(by('ip-blocklists').status).toBe('unknown')
		expect(by('ip-blocklists').summary).toMatch(/Not tested: .*mx\.broken-host\.test/)
		expect(by('ip-blocklists').details).toContain('Spamhaus ZEN (203.0.113.10): clean')
	})
})

describe('the resolver', () => {
	test('a transient failure is tried again before "could not check"', async () => {
		const zone = GOOD('retry.test')
		zone['_dmarc.retry.test'] = { SERVFAIL: true }
		const { client } = await health('retry.test', zone)
		const asked = client.asked().length
		// every distinct question once, the failing one twice (one retry)
		expect(client.sent()).toBe(asked + 1)
	})
	test('queries in flight stay within the bound', async () => {
		Object.assign(dns.zone, GOOD('bound.test'))
		const client = createDnsClient({ servers: [dns.server], concurrency: 3 })
		await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				checkDomainHealth(client, i ? `x${i}.bound.test` : 'bound.test', { provider: 'google' }),
			),
		)
		expect(client.peak()).toBeLessThanOrEqual(3)
		expect(client.sent()).toBeGreaterThan(100)
	})
})
