import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { isOwner, type AccountContext } from '../../context.server.ts'
import {
	createEmailBisonClient,
	emailBisonBase,
	EmailBisonError,
	isHttpUrl,
} from '../../integrations/emailbison.server.ts'
import { COULD_NOT_CONNECT, internalUrlReason } from '../../integrations/outbound.server.ts'
import { FormError, forbidden } from '../../utils/http-errors.server.ts'
import { lastFour, openSecret, sealSecret } from '../../utils/secrets.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'

/** settings.super_admin_api_key: sealed with this purpose, owner = the account id. */
export const EMAILBISON_KEY_PURPOSE = 'emailbison-key'

/** DESIGN.md section 4: settings and keys are the owner's and team admins'. */
export function canManageSettings(account: AccountContext) {
	return isOwner(account) || (account.isActiveTeamMember && account.teamRole === 'admin')
}

function assertCanManage(account: AccountContext) {
	if (!canManageSettings(account))
		forbidden('Only the account owner and team admins can change the EmailBison settings.')
}

export type EmailBisonSettingsView = {
	url: string
	keyLast4: string | null
	configured: boolean
	canManage: boolean
}

export async function getEmailBisonSettings(
	context: AccountContext | null,
): Promise<EmailBisonSettingsView> {
	const account = actingAccount(context)
	const row = await db
		.selectFrom('settings')
		.select(['emailbison_api_url', 'super_admin_api_key'])
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	const key = row?.super_admin_api_key
		? openSecret(row.super_admin_api_key, EMAILBISON_KEY_PURPOSE, account.accountId)
		: null
	const canManage = canManageSettings(account)
	return {
		url: canManage ? (row?.emailbison_api_url ?? '') : '',
		keyLast4: canManage && key ? lastFour(key) : null,
		configured: Boolean(row?.emailbison_api_url && key),
		canManage,
	}
}

export const URL_CHANGED_KEY_AGAIN =
	'Enter the super-admin API key again: the saved key is only sent to the URL it was saved with.'

/**
 * Saves the URL and (when given) a new super-admin key; an empty key keeps the saved one only
 * while the URL stays the same. Minted workspace keys are dropped when either changes.
 */
export async function saveEmailBisonSettings(
	context: AccountContext | null,
	input: { url: string; apiKey?: string },
) {
	const account = actingAccount(context)
	assertCanManage(account)
	const url = input.url.trim()
	if (!isHttpUrl(url))
		throw new FormError('Enter an http:// or https:// URL, e.g. https://mail.example.com', 'url')
	const current = await db
		.selectFrom('settings')
		.select(['emailbison_api_url', 'super_admin_api_key'])
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	const internal = internalUrlReason(url)
	if (internal) throw new FormError(internal, 'url')
	if (!input.apiKey && !current?.super_admin_api_key)
		throw new FormError('Enter the super-admin API key', 'apiKey')
	// the stored key stays with the URL it was saved for: a new destination needs the key again
	if (
		!input.apiKey &&
		current?.emailbison_api_url &&
		emailBisonBase(current.emailbison_api_url) !== emailBisonBase(url)
	)
		throw new FormError(URL_CHANGED_KEY_AGAIN, 'apiKey')
	const sealed = input.apiKey
		? sealSecret(input.apiKey, EMAILBISON_KEY_PURPOSE, account.accountId)
		: current!.super_admin_api_key!
	await db.transaction().execute(async (trx) => {
		await trx
			.insertInto('settings')
			.values({ user_id: account.accountId, emailbison_api_url: url, super_admin_api_key: sealed })
			.onConflict((oc) =>
				oc.column('user_id').doUpdateSet({
					emailbison_api_url: url,
					super_admin_api_key: sealed,
					updated_at: sql`now()`,
				}),
			)
			.execute()
		if (input.apiKey || current?.emailbison_api_url !== url)
			await trx
				.deleteFrom('emailbison_workspace_keys')
				.where('user_id', '=', account.accountId)
				.execute()
	})
}

export type EmailBisonAccess = { accountId: string; baseUrl: string; superAdminKey: string }

/** The account's EmailBison URL and super-admin key, for server-side calls only. */
export async function loadEmailBisonAccess(accountId: string): Promise<EmailBisonAccess | null> {
	const row = await db
		.selectFrom('settings')
		.select(['emailbison_api_url', 'super_admin_api_key'])
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	if (!row?.emailbison_api_url || !row.super_admin_api_key) return null
	return {
		accountId,
		baseUrl: row.emailbison_api_url,
		superAdminKey: openSecret(row.super_admin_api_key, EMAILBISON_KEY_PURPOSE, accountId),
	}
}

export const NOT_CONFIGURED =
	'Connect EmailBison first: add its URL and super-admin key in Settings.'

/** The connection test: GET /api/users with the stored key; a FormError with a clear message. */
export async function testEmailBisonConnection(context: AccountContext | null) {
	const account = actingAccount(context)
	assertCanManage(account)
	const access = await loadEmailBisonAccess(account.accountId)
	if (!access) throw new FormError(NOT_CONFIGURED)
	try {
		const me = await createEmailBisonClient({
			baseUrl: access.baseUrl,
			apiKey: access.superAdminKey,
			timeoutMs: 15_000,
		}).me()
		return { name: me?.name ?? me?.email ?? 'EmailBison' }
	} catch (error) {
		if (error instanceof EmailBisonError) {
			if (error.kind === 'key')
				throw new FormError('EmailBison refused the key: check the super-admin API key.')
			// one message for refused, timed out, TLS and internal addresses alike
			if ((error.kind === 'unavailable' && !error.status) || error.kind === 'url')
				throw new FormError(`${COULD_NOT_CONNECT} Check the EmailBison URL: ${access.baseUrl}`)
			if (error.kind === 'not-found')
				throw new FormError(`${access.baseUrl} does not look like an EmailBison instance (404).`)
			throw new FormError(error.message)
		}
		throw error
	}
}
