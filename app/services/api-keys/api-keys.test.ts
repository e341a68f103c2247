import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { loadAccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { startFakeOpenAI } from '../../../tests/fakes/openai/server.ts'
import { startFakeApollo } from '../../../tests/fakes/apollo/server.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { createModelClient } from '../../integrations/openai.server.ts'
import { modelProvider } from '../enrichments/enrichments.server.ts'
import { EMAILBISON_URL_FIRST, listApiKeys, saveApiKey, testApiKey } from './api-keys.server.ts'
import { SaveKeySchema } from './schemas.ts'

// The EmailBison key's test: a real call to the local EmailBison fake at the account's URL.
let eb: FakeEmailBison
beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 1 })
})
afterAll(async () => {
	await eb.close()
})

async function account() {
	const user = await insertUser(db)
	return loadAccountContext(db, user)
}

const setUrl = (accountId: string, url: string) =>
	db
		.insertInto('settings')
		.values({ user_id: accountId, emailbison_api_url: url })
		.onConflict((oc) => oc.column('user_id').doUpdateSet({ emailbison_api_url: url }))
		.execute()

const verifiedAt = async (accountId: string) =>
	(
		await db
			.selectFrom('api_keys')
			.select('verified_at')
			.where('user_id', '=', accountId)
			.where('provider', '=', 'emailbison')
			.executeTakeFirstOrThrow()
	).verified_at

test('the EmailBison key is tested against EmailBison: no URL, a refused key, a good key', async () => {
	const me = await account()
	const wrong = 'eb-wrong-key-abcdefgh9876'
	// a key is kept with the URL it is for: without one it is not saved
	await expect(saveApiKey(me, { provider: 'emailbison', key: wrong })).rejects.toMatchObject({
		field: 'key',
		message: EMAILBISON_URL_FIRST,
	})
	expect(await listApiKeys(me)).toEqual([])

	await setUrl(me.accountId!, `${eb.url}/api`)
	await saveApiKey(me, { provider: 'emailbison', key: wrong })
	const refused = await testApiKey(me, 'emailbison').catch((error: unknown) => error)
	expect(refused).toBeInstanceOf(FormError)
	expect((refused as FormError).message).toBe(
		`The test failed: EmailBison at ${eb.url}/api refused this API key.`,
	)
	expect((refused as FormError).message).not.toContain(wrong.slice(0, -4))
	expect(await verifiedAt(me.accountId!)).toBeNull()
	expect(eb.calls.some((c) => c.includes('/api/users'))).toBe(true)

	await setUrl(me.accountId!, 'http://127.0.0.1:9/nothing-here')
	await saveApiKey(me, { provider: 'emailbison', key: wrong })
	await expect(testApiKey(me, 'emailbison')).rejects.toThrow(
		'The test failed: Could not connect to that URL. (http://127.0.0.1:9/nothing-here)',
	)

	await setUrl(me.accountId!, eb.url)
	await saveApiKey(me, { provider: 'emailbison', key: eb.superAdminKey })
	const message = await testApiKey(me, 'emailbison')
	expect(message).toBe(`The key works: EmailBison user Fake Admin at ${eb.url}.`)
	expect(await verifiedAt(me.accountId!)).not.toBeNull()
	const summary = JSON.stringify(await listApiKeys(me))
	expect(summary).not.toContain(eb.superAdminKey.slice(0, -4))
	expect(summary).toContain(eb.superAdminKey.slice(-4))
})

test('a saved EmailBison key is never sent to another EmailBison URL: the second instance sees no key', async () => {
	const other = await startFakeEmailBison({
		workspaces: 1,
		superAdminKey: 'eb-other-instance-key-9999',
	})
	try {
		const me = await account()
		await setUrl(me.accountId!, eb.url)
		await saveApiKey(me, { provider: 'emailbison', key: eb.superAdminKey })
		// someone points the account's EmailBison at another instance
		await setUrl(me.accountId!, `${other.url}/api`)
		await expect(testApiKey(me, 'emailbison')).rejects.toThrow(
			`The test failed: this key was saved for another EmailBison URL (${eb.url}), and it is only sent there. Paste it again to use it at ${other.url}/api.`,
		)
		expect(other.keysReceived).toEqual([])
		expect(await verifiedAt(me.accountId!)).toBeNull()
		// the same instance spelled with /api: still the URL it was saved for
		await setUrl(me.accountId!, `${eb.url}/api/`)
		expect(await testApiKey(me, 'emailbison')).toMatch(/^The key works/)
		expect(other.keysReceived).toEqual([])
	} finally {
		await other.close()
	}
})

test('an OpenAI-compatible key is only ever sent to the base URL it was saved with', async () => {
	const first = await startFakeOpenAI({ apiKey: 'sk-first-provider-000000000001' })
	const second = await startFakeOpenAI({ apiKey: 'sk-second-provider-00000000002' })
	try {
		const me = await account()
		await saveApiKey(me, {
			provider: 'openai',
			key: 'sk-first-provider-000000000001',
			baseUrl: first.url,
		})
		expect(await testApiKey(me, 'openai')).toMatch(/^The key works/)
		// a new base URL comes with its key: the form cannot keep the old one
		expect(
			SaveKeySchema.safeParse({ intent: 'save', provider: 'openai', baseUrl: second.url }).success,
		).toBe(false)
		const provider = await modelProvider(me.accountId!, 'ownKey')
		await createModelClient(provider!).complete({
			model: 'gpt-4o-mini',
			prompt: 'hello',
			temperature: 0,
			format: { kind: 'text' },
		})
		expect(first.keysReceived).toEqual([
			'sk-first-provider-000000000001',
			'sk-first-provider-000000000001',
		])
		expect(second.keysReceived).toEqual([])
	} finally {
		await first.close()
		await second.close()
	}
})

// issue 39 point 1: Apollo's health call answers 200 for any key; only is_logged_in tells
test('a wrong Apollo key fails its test; a good one passes', async () => {
	const apollo = await startFakeApollo()
	process.env.APOLLO_BASE_URL = apollo.url
	resetSingleton('config')
	try {
		const me = await account()
		await saveApiKey(me, { provider: 'apollo', key: 'not-the-apollo-key' })
		const error = await testApiKey(me, 'apollo').catch((e) => e)
		expect(error).toBeInstanceOf(FormError)
		expect(error.message).toContain('The Apollo API key is not valid')
		await saveApiKey(me, { provider: 'apollo', key: apollo.apiKey })
		expect(await testApiKey(me, 'apollo')).toMatch(/^The key works/)
	} finally {
		await apollo.close()
	}
})

// issue 39 point 6: a provider that lists its models to anyone proves nothing of the key
test('an OpenAI-compatible key test on a provider that needs no key does not say the key works', async () => {
	const open = await startFakeOpenAI({ modelsWithoutKey: true })
	try {
		const me = await account()
		await saveApiKey(me, {
			provider: 'openai',
			key: 'sk-any-key-at-all-0000000000',
			baseUrl: open.url,
		})
		const error = await testApiKey(me, 'openai').catch((e) => e)
		expect(error).toBeInstanceOf(FormError)
		expect(error.message).toContain('could not check the key')
	} finally {
		await open.close()
	}
})
