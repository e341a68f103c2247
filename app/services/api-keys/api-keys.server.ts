import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { isOwner, type AccountContext } from '../../context.server.ts'
import { ApifyError, createApifyClient } from '../../integrations/apify.server.ts'
import { ApolloError, createApolloClient } from '../../integrations/apollo.server.ts'
import {
	createEmailBisonClient,
	emailBisonBase,
	EmailBisonError,
} from '../../integrations/emailbison.server.ts'
import { VerifierError } from '../../integrations/email-verifiers.server.ts'
import { listModels, ModelError } from '../../integrations/openai.server.ts'
import { COULD_NOT_CONNECT, internalUrlReason } from '../../integrations/outbound.server.ts'
import { forbidden, FormError } from '../../utils/http-errors.server.ts'
import { lastFour, sealSecret } from '../../utils/secrets.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { API_KEY_PURPOSE, apiKeyOwner, getProviderKey } from './get-provider-key.server.ts'
import { PROVIDER_LABELS, type Provider } from './schemas.ts'
import { isVerifier, verifierFor } from './verifier-for.server.ts'

/** What the browser may see of a key: never the key, only its last 4 characters. */
export type ApiKeySummary = {
	provider: Provider
	label: string | null
	last4: string
	baseUrl: string | null
	verifiedAt: Date | null
	/** why the last test failed; null when it passed or none ran since the key was saved */
	testError: string | null
	updatedAt: Date
}

/** DESIGN.md section 4: the owner and team admins change keys; editors only see which exist. */
export function canManageApiKeys(account: AccountContext) {
	return isOwner(account) || (account.isActiveTeamMember && account.teamRole === 'admin')
}

function assertCanManage(account: AccountContext) {
	if (!canManageApiKeys(account))
		forbidden('Only the account owner and team admins can add, test or delete API keys.')
}

export async function listApiKeys(context: AccountContext | null): Promise<ApiKeySummary[]> {
	const account = actingAccount(context)
	const rows = await db
		.selectFrom('api_keys')
		.select(['provider', 'label', 'last4', 'base_url', 'verified_at', 'test_error', 'updated_at'])
		.where('user_id', '=', account.accountId)
		.orderBy('provider')
		.execute()
	return rows.map((r) => ({
		provider: r.provider as Provider,
		label: r.label,
		last4: r.last4,
		baseUrl: r.base_url,
		verifiedAt: r.verified_at,
		testError: r.test_error,
		updatedAt: r.updated_at,
	}))
}

/** Adds or replaces the account's key for a provider (encrypted at rest, bound to its row). */
export async function saveApiKey(
	context: AccountContext | null,
	input: { provider: Provider; key: string; baseUrl?: string; label?: string },
) {
	const account = actingAccount(context)
	assertCanManage(account)
	// a key is kept with the URL it is for, and only ever sent there (decision 0024, point 7)
	let baseUrl: string | null = null
	if (input.provider === 'openai' || input.provider === 'reacher') {
		baseUrl = input.baseUrl ?? null
		const internal = baseUrl ? internalUrlReason(baseUrl) : null
		if (internal) throw new FormError(internal, 'baseUrl')
	} else if (input.provider === 'emailbison') {
		baseUrl = (await emailBisonUrl(account.accountId)) ?? null
		if (!baseUrl) throw new FormError(EMAILBISON_URL_FIRST, 'key')
	}
	const values = {
		encrypted_key: sealSecret(
			input.key,
			API_KEY_PURPOSE,
			apiKeyOwner(account.accountId, input.provider),
		),
		last4: lastFour(input.key),
		label: input.label || null,
		base_url: baseUrl,
	}
	await db
		.insertInto('api_keys')
		.values({ user_id: account.accountId, provider: input.provider, ...values })
		.onConflict((oc) =>
			oc
				.columns(['user_id', 'provider'])
				.doUpdateSet({ ...values, verified_at: null, test_error: null, updated_at: sql`now()` }),
		)
		.execute()
}

export async function deleteApiKey(context: AccountContext | null, provider: Provider) {
	const account = actingAccount(context)
	assertCanManage(account)
	const row = await db
		.deleteFrom('api_keys')
		.where('user_id', '=', account.accountId)
		.where('provider', '=', provider)
		.returning('id')
		.executeTakeFirst()
	if (!row) throw new FormError(`There is no ${PROVIDER_LABELS[provider]} key to delete.`)
}

export const EMAILBISON_URL_FIRST =
	'EmailBison runs on your own instance: add its URL in Settings first, then save the key here.'

async function emailBisonUrl(accountId: string) {
	const settings = await db
		.selectFrom('settings')
		.select('emailbison_api_url')
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	return settings?.emailbison_api_url?.trim() || null
}

/**
 * GET /api/users with this key on the EmailBison instance it was saved for: only while that
 * is still the account's EmailBison URL (Settings), never at another one.
 */
async function testEmailBisonKey(accountId: string, key: string, savedFor: string | null) {
	const url = await emailBisonUrl(accountId)
	if (!url)
		throw new FormError(
			'The test failed: EmailBison runs on your own instance. Add its URL in Settings first.',
		)
	if (!savedFor || emailBisonBase(savedFor) !== emailBisonBase(url))
		throw new FormError(
			`The test failed: this key was saved for ${savedFor ? `another EmailBison URL (${savedFor})` : 'no EmailBison URL'}, and it is only sent there. Paste it again to use it at ${url}.`,
		)
	try {
		const me = await createEmailBisonClient({
			baseUrl: url,
			apiKey: key,
			retryDelayMs: 300,
			timeoutMs: 15_000,
		}).me()
		return `The key works: EmailBison user ${me?.name ?? me?.email ?? 'found'} at ${url}.`
	} catch (error) {
		if (!(error instanceof EmailBisonError)) throw error
		if (error.kind === 'key')
			throw new FormError(`The test failed: EmailBison at ${url} refused this API key.`)
		// one message for refused, timed out, TLS and internal addresses alike
		if ((error.kind === 'unavailable' && !error.status) || error.kind === 'url')
			throw new FormError(`The test failed: ${COULD_NOT_CONNECT} (${url})`)
		if (error.kind === 'not-found')
			throw new FormError(`The test failed: ${url} does not look like an EmailBison instance.`)
		throw new FormError(`The test failed: ${error.message}`)
	}
}

/**
 * A cheap authenticated call with the stored key: OpenAI-compatible lists its models,
 * Apify reads /v2/users/me, Apollo its health call, EmailBison /api/users on the
 * account's instance, MillionVerifier and ZeroBounce their credits, Reacher one check. Returns a sentence for the person;
 * throws FormError with a clear reason when the key fails.
 */
export async function testApiKey(context: AccountContext | null, provider: Provider) {
	const account = actingAccount(context)
	assertCanManage(account)
	const stored = await getProviderKey(account.accountId, provider)
	if (!stored) throw new FormError(`Add a ${PROVIDER_LABELS[provider]} key first.`)
	try {
		const message = await callWithKey(account.accountId, provider, stored)
		await recordTest(account.accountId, provider, null)
		return message
	} catch (error) {
		// the badge says the key failed, and why, until it passes or is replaced
		if (error instanceof FormError) await recordTest(account.accountId, provider, error.message)
		throw error
	}
}

async function recordTest(accountId: string, provider: Provider, error: string | null) {
	await db
		.updateTable('api_keys')
		.set({ verified_at: error ? null : sql`now()`, test_error: error })
		.where('user_id', '=', accountId)
		.where('provider', '=', provider)
		.execute()
}

async function callWithKey(
	accountId: string,
	provider: Provider,
	stored: NonNullable<Awaited<ReturnType<typeof getProviderKey>>>,
) {
	const config = getConfig()
	let message: string
	try {
		if (provider === 'openai') {
			const { models, keyChecked } = await listModels({
				baseUrl: stored.baseUrl ?? config.OPENAI_BASE_URL,
				apiKey: stored.key,
				userUrl: Boolean(stored.baseUrl),
			})
			// the provider lists its models without a key too: that answer says nothing of the key
			if (!keyChecked)
				throw new FormError(
					`The test could not check the key: this provider lists its ${models.length} model${models.length === 1 ? '' : 's'} without any key. The key is checked at the first enrichment.`,
				)
			message = `The key works: the provider offers ${models.length} model${models.length === 1 ? '' : 's'}${models.length ? ` (${models.slice(0, 5).join(', ')}${models.length > 5 ? '…' : ''})` : ''}.`
		} else if (provider === 'apify') {
			const me = await createApifyClient({
				baseUrl: config.APIFY_BASE_URL,
				token: stored.key,
				retryDelayMs: 300,
			}).checkToken()
			message = `The key works: Apify user ${me.username ?? me.id}.`
		} else if (provider === 'apollo') {
			await createApolloClient({
				baseUrl: config.APOLLO_BASE_URL,
				apiKey: stored.key,
				retryDelayMs: 300,
			}).health()
			message = 'The key works: Apollo answered its health check.'
		} else if (isVerifier(provider)) {
			message = await verifierFor(provider, stored).checkKey()
		} else {
			message = await testEmailBisonKey(accountId, stored.key, stored.baseUrl)
		}
	} catch (error) {
		if (
			error instanceof ModelError ||
			error instanceof ApifyError ||
			error instanceof ApolloError ||
			error instanceof VerifierError
		)
			throw new FormError(`The test failed: ${error.message}`)
		throw error
	}
	return message
}
