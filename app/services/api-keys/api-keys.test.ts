import { afterAll, beforeAll, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { startFakeEmailBison, type FakeEmailBison } from '../../../tests/fakes/emailbison/server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { loadAccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { listApiKeys, saveApiKey, testApiKey } from './api-keys.server.ts'

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
	await saveApiKey(me, { provider: 'emailbison', key: wrong })

	await expect(testApiKey(me, 'emailbison')).rejects.toThrow(/Add its URL in Settings first/)

	await setUrl(me.accountId!, `${eb.url}/api`)
	const refused = await testApiKey(me, 'emailbison').catch((error: unknown) => error)
	expect(refused).toBeInstanceOf(FormError)
	expect((refused as FormError).message).toBe(
		`The test failed: EmailBison at ${eb.url}/api refused this API key.`,
	)
	expect((refused as FormError).message).not.toContain(wrong.slice(0, -4))
	expect(await verifiedAt(me.accountId!)).toBeNull()
	expect(eb.calls.some((c) => c.includes('/api/users'))).toBe(true)

	await setUrl(me.accountId!, 'http://127.0.0.1:9/nothing-here')
	await expect(testApiKey(me, 'emailbison')).rejects.toThrow(
		'The test failed: EmailBison could not be reached at http://127.0.0.1:9/nothing-here.',
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
