import { db } from '../../../db/index.server.ts'
import { openSecret } from '../../utils/secrets.server.ts'

/** Encryption purpose and owner of api_keys rows: `${user_id}:${provider}`. */
export const API_KEY_PURPOSE = 'api-key'
export const apiKeyOwner = (accountId: string, provider: string) => `${accountId}:${provider}`

/** The account's own key for a provider, decrypted for a server-side call; never sent to a browser. */
export async function getProviderKey(accountId: string, provider: string) {
	const row = await db
		.selectFrom('api_keys')
		.select(['encrypted_key', 'base_url'])
		.where('user_id', '=', accountId)
		.where('provider', '=', provider)
		.executeTakeFirst()
	if (!row) return null
	return {
		key: openSecret(row.encrypted_key, API_KEY_PURPOSE, apiKeyOwner(accountId, provider)),
		baseUrl: row.base_url,
	}
}
