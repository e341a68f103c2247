import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ServerBuild } from 'react-router'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeDns } from '../../../tests/fakes/dns/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import { appHostNames, isAppHost } from './app-hosts.server.ts'
import { verificationRecord } from './dns-check.server.ts'
import { checkDomainNow, importDomains, listDomains } from './domains.server.ts'
import { findForward, stopListeningForForwardingChanges } from './forwarding-cache.server.ts'
import { setForwarding } from './forwarding.server.ts'
import { startDomainSubscription } from './subscriptions.server.ts'

// Issue 14: forwarding never takes over the app's own host names, and a domain forwards only
// after its owner proved control of its DNS; importing tells nobody which domains exist here.

const APP = 'leadsmith-app.com'
let dns: Awaited<ReturnType<typeof startFakeDns>>

beforeAll(async () => {
	dns = await startFakeDns({})
	process.env.DNS_SERVERS = dns.server
	process.env.APP_URL = `https://www.${APP}`
	process.env.FORWARDING_TARGET = 'fwd.leadsmith-edge.net'
	resetSingleton('config')
})

afterAll(async () => {
	await dns.close()
	await stopListeningForForwardingChanges()
	delete process.env.DNS_SERVERS
	delete process.env.APP_URL
	delete process.env.FORWARDING_TARGET
	resetSingleton('config')
})

async function owner() {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	return { user, workspaceId, account: await loadAccountContext(db, user) }
}

async function ownDomain(account: AccountContext, workspaceId: string, name: string) {
	await importDomains(account, { text: name, workspaceId })
	const row = await db
		.selectFrom('domains')
		.selectAll()
		.where('user_id', '=', account.user.id)
		.where('name', '=', name)
		.executeTakeFirstOrThrow()
	const checkout = await startDomainSubscription(account, row.id)
	await completeTestCheckout(account, checkout.id)
	return row
}

function publish(name: string, token: string) {
	const record = verificationRecord(name, token)
	dns.zone[record.host] = { TXT: ['some-other=value', record.value] }
}

async function withApp<T>(
	work: (get: (host: string) => Promise<{ status: number; location?: string }>) => Promise<T>,
) {
	const { createApp } = await import('../../server/app.server.ts')
	const app = await createApp({ nonce: () => 'n', build: async () => ({}) as ServerBuild })
	const server = app.listen(0, '127.0.0.1')
	await new Promise((resolve) => server.once('listening', resolve))
	const port = (server.address() as AddressInfo).port
	const get = (host: string) =>
		new Promise<{ status: number; location?: string }>((resolve, reject) => {
			httpRequest({ host: '127.0.0.1', port, path: '/signin', headers: { host } }, (res) => {
				res.resume()
				resolve({ status: res.statusCode!, location: res.headers.location })
			})
				.on('error', reject)
				.end()
		})
	try {
		return await work(get)
	} finally {
		server.close()
	}
}

describe("the app's own host names", () => {
	test('APP_URL, the auth host and FORWARDING_TARGET, with or without www., and under them', () => {
		const hosts = appHostNames({
			APP_URL: 'https://www.Leadsmith.io/',
			SUPABASE_URL: 'https://abc.supabase.co',
			FORWARDING_TARGET: 'edge.leadsmith.net.',
		})
		expect(hosts).toEqual(['leadsmith.io', 'abc.supabase.co', 'edge.leadsmith.net'])
		for (const name of [
			'leadsmith.io',
			'www.leadsmith.io',
			'WWW.LEADSMITH.IO.',
			'app.leadsmith.io',
			'abc.supabase.co',
			'www.abc.supabase.co',
			'edge.leadsmith.net',
		]) {
			expect(isAppHost(name, hosts), name).toBe(true)
		}
		for (const name of ['leadsmith.com', 'notleadsmith.io', 'supabase.co', 'leadsmith.net']) {
			expect(isAppHost(name, hosts), name).toBe(false)
		}
		// an IP as the target is no host name to protect
		expect(
			appHostNames({ APP_URL: 'http://203.0.113.5:3000', FORWARDING_TARGET: '203.0.113.5' }),
		).toEqual([])
	})

	test('refused at import, with or without www. and for subdomains', async () => {
		const { account, workspaceId } = await owner()
		const { lines, added } = await importDomains(account, {
			text: `${APP}\nmail.${APP}\nfwd.leadsmith-edge.net\nreal-${APP}`,
			workspaceId,
		})
		expect(added).toBe(1)
		expect(lines.map((l) => [l.value, l.result, l.reason])).toEqual([
			[APP, 'invalid', 'this is the app’s own address'],
			[`mail.${APP}`, 'invalid', 'this is the app’s own address'],
			['fwd.leadsmith-edge.net', 'invalid', 'this is the app’s own address'],
			[`real-${APP}`, 'added', null],
		])
		const www = await importDomains(account, { text: `https://WWW.${APP}/`, workspaceId })
		expect(www.lines.map((l) => [l.result, l.reason])).toEqual([
			['invalid', 'this is the app’s own address'],
		])
	})

	test('a row named like the app (from before) never forwards, never redirects the app', async () => {
		const { user, account, workspaceId } = await owner()
		// as an older version let it in, paid and verified
		const row = await db
			.insertInto('domains')
			.values({ user_id: user.id, workspace_id: workspaceId, name: APP, source: 'imported' })
			.returningAll()
			.executeTakeFirstOrThrow()
		const checkout = await startDomainSubscription(account, row.id)
		await completeTestCheckout(account, checkout.id)
		expect(
			await outcomeOf(() =>
				setForwarding(account, {
					domainId: row.id,
					url: 'https://evil.example/signin',
					code: 302,
					keepPath: true,
				}),
			),
		).toBe('form')
		await db
			.updateTable('domains')
			.set({ forward_to: 'https://evil.example/', redirect_code: 302, verified_at: new Date() })
			.where('id', '=', row.id)
			.execute()
		expect(await findForward(APP)).toBeUndefined()
		await withApp(async (get) => {
			for (const host of [APP, `www.${APP}`, `WWW.${APP.toUpperCase()}.`, `login.${APP}`]) {
				expect((await get(host)).location ?? '', host).not.toContain('evil.example')
			}
		})
	})
})

describe('proof of control', () => {
	test('a domain forwards only once its TXT record is found; the latest proof wins', async () => {
		const name = `proof-${Math.random().toString(36).slice(2, 8)}.com`
		const first = await owner()
		const second = await owner()
		const a = await ownDomain(first.account, first.workspaceId, name)
		// a stranger importing the same name hears what a fresh name gets
		const { lines } = await importDomains(second.account, {
			text: name,
			workspaceId: second.workspaceId,
		})
		expect(lines.map((l) => [l.result, l.reason])).toEqual([['added', null]])
		const b = await ownDomain(second.account, second.workspaceId, name)
		expect(a.verification_token).not.toBe(b.verification_token)
		await setForwarding(first.account, {
			domainId: a.id,
			url: 'https://first.example/',
			code: 302,
			keepPath: false,
		})
		await setForwarding(second.account, {
			domainId: b.id,
			url: 'https://second.example/',
			code: 302,
			keepPath: false,
		})

		await withApp(async (get) => {
			// both paid and set, neither proved control: nothing forwards, even with the domain
			// pointed at the app (that proves nothing: anyone may have imported it first)
			dns.zone[name] = { CNAME: 'fwd.leadsmith-edge.net' }
			const unproved = await checkDomainNow(second.account, b.id)
			expect(unproved.dns?.forwarding.ok).toBe(true)
			expect(unproved.verified_at).toBeNull()
			expect((await get(name)).status).not.toBe(302)

			// the second account publishes its token: it forwards
			publish(name, b.verification_token)
			expect((await checkDomainNow(second.account, b.id)).verified_at).toBeInstanceOf(Date)
			await expect.poll(async () => (await get(name)).location).toBe('https://second.example/')
			// the first account's token is not in DNS: checking changes nothing for it
			expect((await checkDomainNow(first.account, a.id)).verified_at).toBeNull()

			// the name changes hands: the first account's token replaces it and wins
			publish(name, a.verification_token)
			expect((await checkDomainNow(first.account, a.id)).verified_at).toBeInstanceOf(Date)
			await expect.poll(async () => (await get(name)).location).toBe('https://first.example/')
			const [secondView] = await listDomains(second.account)
			expect(secondView!.verified_at).toBeNull()
			// once verified it stays so when the record is taken away
			delete dns.zone[verificationRecord(name, a.verification_token).host]
			expect((await checkDomainNow(first.account, a.id)).verified_at).toBeInstanceOf(Date)
		})

		// another account's domain cannot be checked through its id
		expect(await outcomeOf(() => checkDomainNow(second.account, a.id))).toBe(404)
	})
})
