import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ServerBuild } from 'react-router'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { startFakeDns } from '../../../tests/fakes/dns/server.ts'
import {
	buildAccounts,
	contextOf,
	insertWorkspace,
	outcomeOf,
	type Persona,
	PERSONAS,
} from '../../../tests/support/team.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import { checkDomainDns, runDnsChecks, verificationRecord } from './dns-check.server.ts'
import { domainsFromCsv } from '../../utils/domains-csv.server.ts'
import { importDomains, listDomains, requestDnsCheck } from './domains.server.ts'
import { checkForwardUrl, removeForwarding, setForwarding } from './forwarding.server.ts'
import { stopListeningForForwardingChanges } from './forwarding-cache.server.ts'
import {
	expireDomainSubscriptions,
	listDomainSubscriptions,
	setDomainSubscriptionCancel,
	startDomainSubscription,
} from './subscriptions.server.ts'

let dns: Awaited<ReturnType<typeof startFakeDns>>

beforeAll(async () => {
	dns = await startFakeDns({
		'healthy.com': {
			A: ['203.0.113.10'],
			MX: [
				{ priority: 20, exchange: 'alt.mx.healthy.com' },
				{ priority: 10, exchange: 'mx.healthy.com' },
			],
			TXT: ['google-site-verification=abc', 'v=spf1 include:_spf.google.com ~all'],
		},
		'_dmarc.healthy.com': { TXT: ['v=DMARC1; p=none'] },
		'bare.io': { A: ['198.51.100.7'] },
	})
	process.env.DNS_SERVERS = dns.server
	process.env.FORWARDING_TARGET = '203.0.113.10'
	resetSingleton('config')
})

afterAll(async () => {
	await dns.close()
	await stopListeningForForwardingChanges()
	delete process.env.DNS_SERVERS
	delete process.env.FORWARDING_TARGET
	resetSingleton('config')
})

async function owner() {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	return { user, workspaceId, account: await loadAccountContext(db, user) }
}

/** Subscribes a domain through the test checkout, as the page does. */
async function subscribe(account: AccountContext, domainId: string) {
	const checkout = await startDomainSubscription(account, domainId)
	expect(checkout.url).toMatch(/^\/test-payment\//)
	return completeTestCheckout(account, checkout.id)
}

async function domainId(accountId: string, name: string) {
	const row = await db
		.selectFrom('domains')
		.select('id')
		.where('user_id', '=', accountId)
		.where('name', '=', name)
		.executeTakeFirstOrThrow()
	return row.id
}

/** Publishes the domain's verification TXT record in the fake DNS and runs its check. */
async function verify(domainId: string) {
	const row = await db
		.selectFrom('domains')
		.select(['name', 'verification_token'])
		.where('id', '=', domainId)
		.executeTakeFirstOrThrow()
	const record = verificationRecord(row.name, row.verification_token)
	dns.zone[record.host] = { TXT: [record.value] }
	await runDnsChecks([domainId])
}

describe('importing domains', () => {
	test('a result per line: added, duplicate (input, account), invalid with its reason; a name another account holds is added too', async () => {
		const { user, account, workspaceId } = await owner()
		const other = await owner()
		await importDomains(other.account, { text: 'theirs.com', workspaceId: other.workspaceId })
		await importDomains(account, { text: 'already.com', workspaceId })

		const { lines, added } = await importDomains(account, {
			text: [
				'Acme.COM, https://www.beta.io/about',
				'acme.com',
				'bücher.de already.com',
				'theirs.com',
				'not_a_domain.com',
				'localhost',
				'acme.notarealtld',
				'co.uk',
				'',
			].join('\n'),
			workspaceId,
		})
		expect(added).toBe(4)
		expect(lines.map((l) => [l.line, l.value, l.result, l.domain])).toEqual([
			[1, 'Acme.COM', 'added', 'acme.com'],
			[1, 'https://www.beta.io/about', 'added', 'beta.io'],
			[2, 'acme.com', 'duplicate', 'acme.com'],
			[3, 'bücher.de', 'added', 'xn--bcher-kva.de'],
			[3, 'already.com', 'duplicate', 'already.com'],
			// the answer must not tell a stranger which domains exist here
			[4, 'theirs.com', 'added', 'theirs.com'],
			[5, 'not_a_domain.com', 'invalid', null],
			[6, 'localhost', 'invalid', null],
			[7, 'acme.notarealtld', 'invalid', null],
			[8, 'co.uk', 'invalid', null],
		])
		expect(lines[2]!.reason).toBe('repeats line 1')
		expect(lines[4]!.reason).toBe('already in your account')
		expect(lines[5]!.reason).toBeNull()
		expect(lines[8]!.reason).toMatch(/not a public domain ending/)
		expect(lines[9]!.reason).toMatch(/public suffix/)

		const names = (await listDomains(account)).map((d) => d.name).sort()
		expect(names).toEqual(['acme.com', 'already.com', 'beta.io', 'theirs.com', 'xn--bcher-kva.de'])
		const acme = await db
			.selectFrom('domains')
			.selectAll()
			.where('user_id', '=', user.id)
			.where('name', '=', 'acme.com')
			.executeTakeFirstOrThrow()
		expect(acme).toMatchObject({ workspace_id: workspaceId, source: 'imported', status: 'active' })
		expect(acme.dns).toEqual({ pending: true })
		// the dns-check job was queued in the same transaction
		const jobs = await db
			.selectFrom('pgboss.job' as never)
			.select(['name' as never, 'data' as never])
			.where('name' as never, '=', 'dns-check' as never)
			.execute()
		expect(
			(jobs as { data: { domainIds: string[] } }[]).some((j) => j.data.domainIds.includes(acme.id)),
		).toBe(true)
	})

	test('empty input and a workspace the user cannot use are refused', async () => {
		const { account, workspaceId } = await owner()
		const other = await owner()
		expect(await outcomeOf(() => importDomains(account, { text: ' \n ', workspaceId }))).toBe(
			'form',
		)
		expect(
			await outcomeOf(() =>
				importDomains(account, { text: 'x.com', workspaceId: other.workspaceId }),
			),
		).toBe(403)
	})

	test('a CSV: the "domain" column, or the first one, each on its line of the file', () => {
		// the header is line 1: it stays as an empty line
		expect(domainsFromCsv('name,domain\nAcme,acme.com\nBeta,"beta.io"\n')).toBe(
			'\nacme.com\nbeta.io',
		)
		expect(domainsFromCsv('acme.com,x\nbeta.io,y')).toBe('acme.com\nbeta.io')
	})

	test('an uploaded CSV reports the line of the file', async () => {
		const { account, workspaceId } = await owner()
		const { lines } = await importDomains(account, {
			text: domainsFromCsv('Domain\ngood-csv-line.com\n\nbad_one\n'),
			workspaceId,
		})
		expect(lines.map((l) => [l.line, l.value, l.result])).toEqual([
			[2, 'good-csv-line.com', 'added'],
			[4, 'bad_one', 'invalid'],
		])
	})
})

describe('DNS health', () => {
	test('MX, SPF, DMARC and the forwarding record through the configured resolver', async () => {
		const healthy = await checkDomainDns('healthy.com')
		expect(healthy).toEqual({
			mx: ['10 mx.healthy.com', '20 alt.mx.healthy.com'],
			spf: 'v=spf1 include:_spf.google.com ~all',
			dmarc: 'v=DMARC1; p=none',
			forwarding: { ok: true, found: ['203.0.113.10'] },
			errors: [],
		})
		const bare = await checkDomainDns('bare.io')
		expect(bare).toMatchObject({
			mx: [],
			spf: null,
			dmarc: null,
			forwarding: { ok: false, found: ['198.51.100.7'] },
			errors: [],
		})
		const missing = await checkDomainDns('nowhere.dev')
		expect(missing).toMatchObject({ mx: [], spf: null, forwarding: { ok: false } })
	})

	test('the job stores the result and the time of the check', async () => {
		const { user, account, workspaceId } = await owner()
		await importDomains(account, { text: 'healthy.com', workspaceId })
		const id = await domainId(user.id, 'healthy.com')
		expect(await requestDnsCheck(account, [id])).toBe(1)
		await runDnsChecks([id])
		const [domain] = await listDomains(account)
		expect(domain!.dns).toMatchObject({
			spf: expect.stringMatching(/^v=spf1/),
			dmarc: 'v=DMARC1; p=none',
		})
		expect(domain!.dns_checked_at).toBeInstanceOf(Date)
	})
})

describe('URL forwarding', () => {
	test('forward-to URLs: http(s) only, never back at the domain', () => {
		expect(checkForwardUrl('acme.com', 'example.org/page')).toBe('https://example.org/page')
		expect(checkForwardUrl('acme.com', 'http://acme.co/x?y=1')).toBe('http://acme.co/x?y=1')
		for (const bad of [
			'ftp://example.org',
			'javascript:alert(1)',
			'https://acme.com/elsewhere',
			'https://WWW.Acme.com',
			'https://user:pw@example.org',
			'http://',
		]) {
			expect(() => checkForwardUrl('acme.com', bad), bad).toThrow(FormError)
		}
	})

	test('a real request with a forwarded Host gets the 301 or 302, with or without the path', async () => {
		const { user, account, workspaceId } = await owner()
		await importDomains(account, { text: 'go-acme.com, keep-acme.com, lapsed.com', workspaceId })
		const go = await domainId(user.id, 'go-acme.com')
		const keep = await domainId(user.id, 'keep-acme.com')
		const lapsed = await domainId(user.id, 'lapsed.com')

		// no subscription, no forwarding
		expect(
			await outcomeOf(() =>
				setForwarding(account, {
					domainId: go,
					url: 'https://example.org',
					code: 301,
					keepPath: false,
				}),
			),
		).toBe('form')
		for (const id of [go, keep, lapsed]) await subscribe(account, id)
		await setForwarding(account, {
			domainId: go,
			url: 'https://example.org/landing',
			code: 301,
			keepPath: false,
		})
		await setForwarding(account, {
			domainId: keep,
			url: 'https://example.org/base/?src=fw',
			code: 302,
			keepPath: true,
		})
		await setForwarding(account, {
			domainId: lapsed,
			url: 'https://example.net',
			code: 302,
			keepPath: false,
		})

		const { createApp } = await import('../../server/app.server.ts')
		const app = await createApp({
			nonce: () => 'n',
			// React Router never runs for a forwarded host: a stub build is enough
			build: async () => ({}) as ServerBuild,
		})
		const server = app.listen(0, '127.0.0.1')
		await new Promise((resolve) => server.once('listening', resolve))
		const port = (server.address() as AddressInfo).port
		const get = (host: string, path: string) =>
			new Promise<{ status: number; location?: string; cookie?: string[] }>((resolve, reject) => {
				httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
					res.resume()
					resolve({
						status: res.statusCode!,
						location: res.headers.location,
						cookie: res.headers['set-cookie'],
					})
				})
					.on('error', reject)
					.end()
			})
		try {
			// saved, paid for, but not verified: no redirect yet
			expect((await get('go-acme.com', '/')).status).not.toBe(301)
			for (const id of [go, keep, lapsed]) await verify(id)
			expect(await get('go-acme.com', '/pricing?a=1')).toEqual({
				status: 301,
				location: 'https://example.org/landing',
				cookie: undefined,
			})
			expect(await get('www.go-acme.com:8080', '/')).toMatchObject({ status: 301 })
			expect(await get('keep-acme.com', '/pricing/plans?a=1&b=2')).toMatchObject({
				status: 302,
				location: 'https://example.org/base/pricing/plans?src=fw&a=1&b=2',
			})

			// a change made elsewhere (another process) reaches this one through NOTIFY
			await db
				.updateTable('domains')
				.set({ forward_to: 'https://example.com/moved', redirect_code: 301 })
				.where('id', '=', go)
				.execute()
			await expect
				.poll(async () => (await get('go-acme.com', '/')).location, { timeout: 5000 })
				.toBe('https://example.com/moved')

			// an expired subscription loses forwarding at its end, before the renewal job runs
			expect((await get('lapsed.com', '/')).status).toBe(302)
			await db
				.updateTable('domain_subscriptions')
				.set({ expire_date: new Date(Date.now() - 1000) })
				.where('domain_id', '=', lapsed)
				.execute()
			await expect
				.poll(async () => (await get('lapsed.com', '/')).status, { timeout: 5000 })
				.not.toBe(302)
			expect((await expireDomainSubscriptions()).length).toBe(1)
			expect((await get('lapsed.com', '/')).status).not.toBe(302)
			expect(
				await outcomeOf(() =>
					setForwarding(account, {
						domainId: lapsed,
						url: 'https://example.net',
						code: 302,
						keepPath: false,
					}),
				),
			).toBe('form')

			await removeForwarding(account, keep)
			await expect
				.poll(async () => (await get('keep-acme.com', '/')).status, { timeout: 5000 })
				.not.toBe(302)
			// the app's own host is never forwarded
			expect((await get('localhost', '/healthz')).location).toBeUndefined()
		} finally {
			server.close()
		}
	})
})

describe('forwarding loops across domains', () => {
	function forward(account: AccountContext, domainId: string, url: string) {
		return setForwarding(account, { domainId, url, code: 302, keepPath: false })
	}

	test('a forward whose target leads back through other forwards (any account) is refused', async () => {
		const mine = await owner()
		const theirs = await owner()
		await importDomains(mine.account, {
			text: 'loop-a.com, loop-c.com',
			workspaceId: mine.workspaceId,
		})
		await importDomains(theirs.account, { text: 'loop-b.com', workspaceId: theirs.workspaceId })
		const a = await domainId(mine.user.id, 'loop-a.com')
		const c = await domainId(mine.user.id, 'loop-c.com')
		const b = await domainId(theirs.user.id, 'loop-b.com')
		for (const id of [a, c]) await subscribe(mine.account, id)
		await subscribe(theirs.account, b)
		await verify(b)

		await forward(mine.account, a, 'https://www.loop-b.com/x')
		await forward(theirs.account, b, 'https://loop-c.com/landing')
		// c -> a closes a -> b -> c -> a
		await expect(forward(mine.account, c, 'https://loop-a.com/')).rejects.toThrow(
			'loop-a.com forwards back to loop-c.com, so forwarding there would loop',
		)
		// b -> a: b's own chain a -> b
		await expect(forward(theirs.account, b, 'loop-a.com')).rejects.toThrow('would loop')
		const row = await db
			.selectFrom('domains')
			.select('forward_to')
			.where('id', '=', c)
			.executeTakeFirstOrThrow()
		expect(row.forward_to).toBeNull()
		// a chain that ends elsewhere is fine; a subdomain of a forwarded domain is not its Host
		await forward(mine.account, c, 'https://shop.loop-a.com/')
		await forward(mine.account, c, 'https://example.org/')
		// once a no longer forwards, c -> a is no loop
		await removeForwarding(mine.account, a)
		await forward(mine.account, c, 'https://loop-a.com/')
	})

	test('two changes at once cannot make a loop between them', async () => {
		const { user, account, workspaceId } = await owner()
		const names = [
			'race-x1.com',
			'race-y1.com',
			'race-x2.com',
			'race-y2.com',
			'race-x3.com',
			'race-y3.com',
		]
		await importDomains(account, { text: names.join(' '), workspaceId })
		const ids = new Map<string, string>()
		for (const name of names) {
			const id = await domainId(user.id, name)
			await subscribe(account, id)
			ids.set(name, id)
		}
		for (const n of [1, 2, 3]) {
			const results = await Promise.allSettled([
				forward(account, ids.get(`race-x${n}.com`)!, `https://race-y${n}.com`),
				forward(account, ids.get(`race-y${n}.com`)!, `https://race-x${n}.com`),
			])
			expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
			const refused = results.find((r) => r.status === 'rejected')!
			expect(refused.reason).toBeInstanceOf(FormError)
		}
	})
})

describe('domain subscriptions', () => {
	test('paid through checkout, with renewal date; cancel at period end and resume', async () => {
		const { user, account, workspaceId } = await owner()
		await importDomains(account, { text: 'sub-acme.com', workspaceId })
		const id = await domainId(user.id, 'sub-acme.com')
		const session = await subscribe(account, id)
		expect(session.line_items[0]).toMatchObject({ kind: 'domain_subscription', interval: 'month' })
		const [row] = await listDomainSubscriptions(account)
		expect(row).toMatchObject({ name: 'sub-acme.com', status: 'active', price_cents: 1500 })
		const days = (row!.expire_date!.getTime() - row!.billing_date!.getTime()) / 86_400_000
		expect(days).toBeGreaterThanOrEqual(28)
		expect(await outcomeOf(() => startDomainSubscription(account, id))).toBe('form')

		await setDomainSubscriptionCancel(account, row!.subscription_id!, true)
		expect((await listDomainSubscriptions(account))[0]).toMatchObject({
			cancel_at_period_end: true,
		})
		expect(
			await outcomeOf(() => setDomainSubscriptionCancel(account, row!.subscription_id!, true)),
		).toBe('form')
		await setDomainSubscriptionCancel(account, row!.subscription_id!, false)
		// another account's subscription is not found
		const other = await owner()
		expect(
			await outcomeOf(() =>
				setDomainSubscriptionCancel(other.account, row!.subscription_id!, true),
			),
		).toBe(404)
	})
})

describe('scope matrix (domains, forwarding, domain checkout)', () => {
	test('read-only scope views, write scope and scope all change, others are refused', async () => {
		const world = await buildAccounts(db)
		const { owner: ownerUser } = world.users
		const ownerAccount = await contextOf(db, ownerUser)
		// a subscribed domain in X to forward
		await importDomains(ownerAccount, { text: 'matrix-acme.com', workspaceId: world.workspaces.X })
		const id = await domainId(ownerUser.id, 'matrix-acme.com')
		await subscribe(ownerAccount, id)

		const expected: Record<Persona, { view: unknown; change: unknown; checkout: unknown }> = {
			owner: { view: 'ok', change: 'ok', checkout: 'ok' },
			admin: { view: 'ok', change: 'ok', checkout: 'ok' },
			editor: { view: 403, change: 403, checkout: 403 },
			editorRead: { view: 'ok', change: 403, checkout: 403 },
			editorWrite: { view: 'ok', change: 'ok', checkout: 'ok' },
			noX: { view: 'ok', change: 404, checkout: 404 },
			stranger: { view: 'ok', change: 404, checkout: 404 },
		}
		for (const persona of PERSONAS) {
			const account = await contextOf(db, world.users[persona])
			const actual = {
				view: await outcomeOf(() => listDomains(account)),
				change: await outcomeOf(() =>
					setForwarding(account, {
						domainId: id,
						url: `https://example.org/${persona}`,
						code: 302,
						keepPath: false,
					}),
				),
				checkout: await outcomeOf(async () => {
					await db
						.updateTable('domain_subscriptions')
						.set({ status: 'canceled' })
						.where('domain_id', '=', id)
						.execute()
					try {
						return await startDomainSubscription(account, id)
					} finally {
						await db
							.updateTable('domain_subscriptions')
							.set({ status: 'active' })
							.where('domain_id', '=', id)
							.where('checkout_session_id', 'is not', null)
							.execute()
					}
				}),
			}
			expect(actual, persona).toEqual(expected[persona])
		}
		// the read-only editor sees the domain, the stranger does not
		const read = await contextOf(db, world.users.editorRead)
		expect((await listDomains(read)).map((d) => d.name)).toContain('matrix-acme.com')
		const stranger = await contextOf(db, world.users.stranger)
		expect((await listDomains(stranger)).map((d) => d.name)).not.toContain('matrix-acme.com')
	})
})
