import { expect } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { grantCredits } from '../../app/services/billing/credits.server.ts'
import {
	API_KEY_PURPOSE,
	apiKeyOwner,
} from '../../app/services/api-keys/get-provider-key.server.ts'
import { sealSecret } from '../../app/utils/secrets.server.ts'
import { insertUser } from './factories.ts'

/** A new account owner's request context, holding `credits`. */
export async function accountWithCredits(credits = 0) {
	const user = await insertUser(db)
	if (credits) {
		await grantCredits(db, {
			accountId: user.id,
			amount: credits,
			reason: 'admin',
			reference: `seed-${user.id}`,
		})
	}
	return loadAccountContext(db, user)
}

/** Stores `key` as the account's own key for `provider`; returns the refreshed context. */
export async function withProviderKey(
	account: Awaited<ReturnType<typeof accountWithCredits>>,
	provider: string,
	key: string,
) {
	await db
		.insertInto('api_keys')
		.values({
			user_id: account.accountId!,
			provider,
			encrypted_key: sealSecret(key, API_KEY_PURPOSE, apiKeyOwner(account.accountId!, provider)),
			last4: key.slice(-4),
		})
		.execute()
	return loadAccountContext(db, account.user)
}

/** Waits for a lead list's job to end (status 2 or more); returns the list. */
export async function settledLeadList(listId: string) {
	await untilSettled(() =>
		db
			.selectFrom('processing_list')
			.select('status')
			.where('id', '=', listId)
			.executeTakeFirstOrThrow(),
	)
	return db
		.selectFrom('processing_list')
		.selectAll()
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
}

/** Waits for a company list's job to end (status 2 or more); returns the list. */
export async function settledCompanyList(listId: string) {
	await untilSettled(() =>
		db
			.selectFrom('company_scraping_list')
			.select('status')
			.where('id', '=', listId)
			.executeTakeFirstOrThrow(),
	)
	return db
		.selectFrom('company_scraping_list')
		.selectAll()
		.where('id', '=', listId)
		.executeTakeFirstOrThrow()
}

async function untilSettled(read: () => Promise<{ status: number }>) {
	await expect
		.poll(async () => (await read()).status, { timeout: 20_000, interval: 100 })
		.toBeGreaterThanOrEqual(2)
}
