import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../tests/fakes/emailbison/server.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../../tests/fakes/openai/server.ts'
import { insertUser } from '../../tests/support/factories.ts'
import { loadAccountContext } from '../context.server.ts'
import { saveApiKey, testApiKey } from '../services/api-keys/api-keys.server.ts'
import {
	saveEmailBisonSettings,
	testEmailBisonConnection,
} from '../services/emailbison/settings.server.ts'
import { modelProvider } from '../services/enrichments/enrichments.server.ts'
import { API_KEY_PURPOSE, apiKeyOwner } from '../services/api-keys/get-provider-key.server.ts'
import { sealSecret } from '../utils/secrets.server.ts'
import { resetSingleton } from '../utils/singleton.server.ts'
import { createEmailBisonClient, EmailBisonError } from './emailbison.server.ts'
import { createModelClient, listModels, ModelError } from './openai.server.ts'
import { isPublicAddress } from './outbound.server.ts'
import { EMAILBISON_KEY_PURPOSE } from '../services/emailbison/settings.server.ts'

// This file runs with the guard ON (ALLOW_PRIVATE_URLS=false, as in production), against
// fakes on 127.0.0.1: a URL a user set never reaches an internal address, however it is
// spelled or resolved; the fakes record every key they receive.
function guard(on: boolean) {
	process.env.ALLOW_PRIVATE_URLS = on ? 'false' : 'true'
	resetSingleton('config')
}
guard(true)

let eb: FakeEmailBison
let ai: FakeOpenAI
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 1 })
	ai = await startFakeOpenAI()
})
afterAll(async () => {
	guard(false)
	await eb.close()
	await ai.close()
})

const port = () => new URL(eb.url).port

/** a URL and key stored as if saved earlier (before the guard, or before its DNS changed) */
async function storeSettings(accountId: string, url: string, key: string) {
	const values = {
		emailbison_api_url: url,
		super_admin_api_key: sealSecret(key, EMAILBISON_KEY_PURPOSE, accountId),
	}
	await db
		.insertInto('settings')
		.values({ user_id: accountId, ...values })
		.onConflict((oc) => oc.column('user_id').doUpdateSet(values))
		.execute()
}

test.each([
	['127.0.0.1', false],
	['127.8.9.10', false],
	['10.1.2.3', false],
	['172.16.0.1', false],
	['172.31.255.255', false],
	['192.168.1.1', false],
	['100.64.0.1', false],
	['169.254.169.254', false],
	['0.0.0.0', false],
	['224.0.0.1', false],
	['255.255.255.255', false],
	['::1', false],
	['::', false],
	['fd00::1', false],
	['fe80::1', false],
	['ff02::1', false],
	['::ffff:127.0.0.1', false],
	['::ffff:7f00:1', false],
	['[::ffff:a9fe:a9fe]', false],
	['64:ff9b::7f00:1', false],
	['::7f00:1', false],
	['8.8.8.8', true],
	['172.32.0.1', true],
	['100.128.0.1', true],
	['2606:4700:4700::1111', true],
	['::ffff:8.8.8.8', true],
	['64:ff9b::808:808', true],
	['not-an-ip', false],
])('isPublicAddress(%s) is %s', (address, expected) => {
	expect(isPublicAddress(address)).toBe(expected)
})

describe('with the guard on, internal addresses are refused before a byte is sent', () => {
	const spellings = () => [
		`http://127.0.0.1:${port()}`,
		`http://localhost:${port()}`, // a host name resolving to 127.0.0.1
		`http://2130706433:${port()}`, // decimal
		`http://0177.0.0.1:${port()}`, // octal
		`http://0x7f.0.0.1:${port()}`, // hex
		`http://[::ffff:127.0.0.1]:${port()}`,
		`http://[::1]:${port()}`,
		`http://0.0.0.0:${port()}`,
		'http://169.254.169.254', // cloud metadata
	]

	test('EmailBison client: every spelling of an internal address', async () => {
		for (const url of spellings()) {
			const error = await createEmailBisonClient({
				baseUrl: url,
				apiKey: eb.superAdminKey,
				timeoutMs: 3000,
				retryDelayMs: 1,
			})
				.me()
				.catch((e: unknown) => e)
			expect(error, url).toBeInstanceOf(EmailBisonError)
			expect((error as EmailBisonError).kind, url).toBe('url')
			expect((error as EmailBisonError).message).toBe(
				'Could not connect to that URL. Check the EmailBison URL in Settings.',
			)
		}
		expect(eb.keysReceived).toEqual([])
	})

	test('OpenAI-compatible client and key test with an account base URL', async () => {
		const base = ai.url.replace('127.0.0.1', 'localhost')
		const completion = await createModelClient({ baseUrl: base, apiKey: ai.apiKey, userUrl: true })
			.complete({ model: 'gpt-4o-mini', prompt: 'hi', temperature: 0, format: { kind: 'text' } })
			.catch((e: unknown) => e)
		expect(completion).toBeInstanceOf(ModelError)
		expect(completion).toMatchObject({ kind: 'url', fatal: true })
		await expect(
			listModels({
				baseUrl: `http://2130706433:${new URL(ai.url).port}/v1`,
				apiKey: ai.apiKey,
				userUrl: true,
			}),
		).rejects.toMatchObject({ kind: 'url', message: 'Could not connect to that URL.' })
		expect(ai.keysReceived).toEqual([])
		// the platform's own OPENAI_BASE_URL is trusted: not guarded
		expect((await listModels({ baseUrl: ai.url, apiKey: ai.apiKey })).models).toContain(
			'gpt-4o-mini',
		)
		expect(ai.keysReceived).toEqual([ai.apiKey])
	})

	test('forms refuse internal IP literals and localhost at the field, and save nothing', async () => {
		const me = await loadAccountContext(db, await insertUser(db))
		for (const url of [
			`http://127.0.0.1:${port()}`,
			'http://2130706433',
			'http://0x7f.1',
			'http://[::ffff:127.0.0.1]',
			'http://169.254.169.254/latest',
			'http://localhost:8080',
			'http://admin.localhost',
		]) {
			await expect(
				saveEmailBisonSettings(me, { url, apiKey: eb.superAdminKey }),
				url,
			).rejects.toMatchObject({
				field: 'url',
				message: 'Enter a public URL: private and internal addresses are not allowed.',
			})
			await expect(
				saveApiKey(me, { provider: 'openai', key: ai.apiKey, baseUrl: url }),
				url,
			).rejects.toMatchObject({ field: 'baseUrl' })
		}
		const settings = await db
			.selectFrom('settings')
			.select('emailbison_api_url')
			.where('user_id', '=', me.accountId!)
			.executeTakeFirst()
		expect(settings?.emailbison_api_url || null).toBeNull()
		expect(
			await db.selectFrom('api_keys').select('id').where('user_id', '=', me.accountId!).execute(),
		).toEqual([])
	})

	test('a stored URL that resolves inside (saved earlier, or DNS changed) is refused when connecting, with the one message', async () => {
		ai.reset()
		const me = await loadAccountContext(db, await insertUser(db))
		const url = `http://localhost:${port()}/api`
		await storeSettings(me.accountId!, url, eb.superAdminKey)
		await expect(testEmailBisonConnection(me)).rejects.toThrow(
			`Could not connect to that URL. Check the EmailBison URL: ${url}`,
		)
		// an own OpenAI-compatible key whose base URL points inside: previews and runs refuse it
		await db
			.insertInto('api_keys')
			.values({
				user_id: me.accountId!,
				provider: 'openai',
				encrypted_key: sealSecret(ai.apiKey, API_KEY_PURPOSE, apiKeyOwner(me.accountId!, 'openai')),
				last4: '0000',
				base_url: ai.url.replace('127.0.0.1', 'localhost'),
			})
			.execute()
		await expect(testApiKey(me, 'openai')).rejects.toThrow(
			'The test failed: Could not connect to that URL.',
		)
		const provider = await modelProvider(me.accountId!, 'ownKey')
		await expect(
			createModelClient(provider!).complete({
				model: 'gpt-4o-mini',
				prompt: 'hi',
				temperature: 0,
				format: { kind: 'text' },
			}),
		).rejects.toMatchObject({ kind: 'url' })
		expect(eb.keysReceived).toEqual([])
		expect(ai.keysReceived).not.toContain(ai.apiKey)
	})
})

describe('one message whatever the failure: nothing maps internal ports', () => {
	test('refused, TLS and blocked read the same', async () => {
		// a port nobody listens on
		const closed = http.createServer()
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
		const closedPort = (closed.address() as AddressInfo).port
		await new Promise((resolve) => closed.close(resolve))
		const me = await loadAccountContext(db, await insertUser(db))
		const messageFor = async (url: string) => {
			await storeSettings(me.accountId!, url, 'some-key-123456')
			return testEmailBisonConnection(me).then(
				() => 'connected',
				(error: Error) => error.message.replace(url, '<url>'),
			)
		}
		const blocked = await messageFor(`http://127.0.0.1:${closedPort}`)
		guard(false)
		try {
			const refused = await messageFor(`http://127.0.0.1:${closedPort}`)
			// TLS spoken to a plain HTTP server
			const tls = await messageFor(`https://127.0.0.1:${port()}`)
			expect(blocked).toBe('Could not connect to that URL. Check the EmailBison URL: <url>')
			expect(refused).toBe(blocked)
			expect(tls).toBe(blocked)
		} finally {
			guard(true)
		}
	})
})

describe('redirects are not followed: a key goes to the URL it was saved with', () => {
	test('a 302 to another server is an error, and that server sees no key', async () => {
		guard(false)
		const elsewhere = await startFakeEmailBison({ workspaces: 1 })
		const redirector = http.createServer((req, res) => {
			res.writeHead(302, { Location: `${elsewhere.url}${req.url}` })
			res.end()
		})
		await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
		try {
			const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`
			await expect(
				createEmailBisonClient({
					baseUrl: url,
					apiKey: elsewhere.superAdminKey,
					retryDelayMs: 1,
				}).me(),
			).rejects.toMatchObject({ kind: 'unavailable' })
			await expect(
				listModels({ baseUrl: url, apiKey: elsewhere.superAdminKey, userUrl: true }),
			).rejects.toMatchObject({ kind: 'unavailable' })
			expect(elsewhere.keysReceived).toEqual([])
		} finally {
			guard(true)
			redirector.closeAllConnections()
			await new Promise((resolve) => redirector.close(resolve))
			await elsewhere.close()
		}
	})
})
