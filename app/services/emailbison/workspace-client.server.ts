import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import { db, inJob } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import {
	createEmailBisonClient,
	EmailBisonError,
	type EmailBisonClient,
} from '../../integrations/emailbison.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { sleep } from '../../utils/patience.server.ts'
import { lastFour, openSecret, sealSecret } from '../../utils/secrets.server.ts'
import type { EmailBisonAccess } from './settings.server.ts'

// The super-admin key follows its user's current workspace, and switch-workspace changes it
// for every job using the key: two parallel jobs would write into each other's workspace.
// So lead and campaign calls use an api-user key minted per EmailBison workspace (kept,
// encrypted); when minting is not possible, switch + work runs under a PostgreSQL advisory
// lock per super-admin key, so only one of them talks to EmailBison at a time.

export const WORKSPACE_KEY_PURPOSE = 'emailbison-workspace-key'
const workspaceKeyOwner = (accountId: string, ebWorkspaceId: number) =>
	`${accountId}:${ebWorkspaceId}`

export type ClientOptions = { retryDelayMs?: number; timeoutMs?: number }

export function superAdminClient(access: EmailBisonAccess, options: ClientOptions = {}) {
	return createEmailBisonClient({
		baseUrl: access.baseUrl,
		apiKey: access.superAdminKey,
		campaignLeadsPerPage: getConfig().EMAILBISON_CAMPAIGN_LEADS_PER_PAGE,
		...options,
	})
}

/** a minted key is only ever sent to the URL it was minted at (decision 0024, point 7) */
async function storedKey(access: EmailBisonAccess, ebWorkspaceId: number) {
	const accountId = access.accountId
	const row = await db
		.selectFrom('emailbison_workspace_keys')
		.select('encrypted_key')
		.where('user_id', '=', accountId)
		.where('eb_workspace_id', '=', String(ebWorkspaceId))
		.where('base_url', '=', access.baseUrl)
		.executeTakeFirst()
	return row
		? openSecret(
				row.encrypted_key,
				WORKSPACE_KEY_PURPOSE,
				workspaceKeyOwner(accountId, ebWorkspaceId),
			)
		: null
}

/** The workspace's api-user key: the stored one, else minted now; null when minting fails. */
export async function workspaceKey(
	access: EmailBisonAccess,
	ebWorkspaceId: number,
	options: ClientOptions = {},
): Promise<string | null> {
	const existing = await storedKey(access, ebWorkspaceId)
	if (existing) return existing
	let token: string | null
	try {
		token = await superAdminClient(access, options).mintWorkspaceKey(ebWorkspaceId, 'Leadsmith')
	} catch (error) {
		// a wrong super-admin key is the caller's problem; anything else: fall back to the lock
		if (error instanceof EmailBisonError && (error.kind === 'key' || error.retryable)) throw error
		logger.warn({ err: error, ebWorkspaceId }, 'minting an EmailBison api-user key failed')
		return null
	}
	if (!token) return null
	await db
		.insertInto('emailbison_workspace_keys')
		.values({
			user_id: access.accountId,
			eb_workspace_id: String(ebWorkspaceId),
			encrypted_key: sealSecret(
				token,
				WORKSPACE_KEY_PURPOSE,
				workspaceKeyOwner(access.accountId, ebWorkspaceId),
			),
			last4: lastFour(token),
			base_url: access.baseUrl,
		})
		.onConflict((oc) =>
			oc
				.columns(['user_id', 'eb_workspace_id'])
				// a key of another URL (minted while the URL changed) is replaced
				.doUpdateSet((eb) => ({
					encrypted_key: eb.ref('excluded.encrypted_key'),
					last4: eb.ref('excluded.last4'),
					base_url: eb.ref('excluded.base_url'),
					created_at: sql`now()`,
				}))
				.where('emailbison_workspace_keys.base_url', '<>', access.baseUrl),
		)
		.execute()
	// two minted at once: everyone uses the one stored first
	return (await storedKey(access, ebWorkspaceId)) ?? token
}

/** Forget a workspace key EmailBison no longer accepts (it is minted again next time). */
export async function dropWorkspaceKey(accountId: string, ebWorkspaceId: number) {
	await db
		.deleteFrom('emailbison_workspace_keys')
		.where('user_id', '=', accountId)
		.where('eb_workspace_id', '=', String(ebWorkspaceId))
		.execute()
}

/** one lock per super-admin key (its hash: the key itself never leaves this process) */
export const lockKey = (access: EmailBisonAccess) =>
	`emailbison:${createHash('sha256').update(`${access.baseUrl}\n${access.superAdminKey}`).digest('hex')}`

/**
 * Runs `work` with a client that acts in the EmailBison workspace: its api-user key, or
 * the super-admin key switched to the workspace while holding the advisory lock of that
 * super-admin key (held on one connection for the whole of `work`). A job waits for the
 * lock; a page only tries for PAGE_LOCK_WAIT_MS (an upload may hold it for its whole run).
 */
export async function inEbWorkspace<T>(
	access: EmailBisonAccess,
	ebWorkspaceId: number,
	work: (client: EmailBisonClient, mode: 'workspace-key' | 'locked-switch') => Promise<T>,
	options: ClientOptions = {},
): Promise<T> {
	const key = await workspaceKey(access, ebWorkspaceId, options)
	if (key) {
		const client = createEmailBisonClient({
			baseUrl: access.baseUrl,
			apiKey: key,
			campaignLeadsPerPage: getConfig().EMAILBISON_CAMPAIGN_LEADS_PER_PAGE,
			...options,
		})
		try {
			return await work(client, 'workspace-key')
		} catch (error) {
			if (error instanceof EmailBisonError && error.kind === 'key')
				await dropWorkspaceKey(access.accountId, ebWorkspaceId)
			throw error
		}
	}
	if (inJob()) {
		// a job waits its turn, on a connection of the job pool
		return db.connection().execute(async (connection) => {
			await sql`select pg_advisory_lock(hashtextextended(${lockKey(access)}, 0))`.execute(
				connection,
			)
			try {
				return await switchAndWork(access, ebWorkspaceId, work, options)
			} finally {
				await sql`select pg_advisory_unlock(hashtextextended(${lockKey(access)}, 0))`.execute(
					connection,
				)
			}
		})
	}
	// A page never waits on an upload's lock while holding a connection: it tries for a moment,
	// each try on a connection it gives back at once, then says the key is busy.
	const deadline = Date.now() + PAGE_LOCK_WAIT_MS
	for (;;) {
		const outcome = await db.connection().execute(async (connection) => {
			const { rows } = await sql<{
				locked: boolean
			}>`select pg_try_advisory_lock(hashtextextended(${lockKey(access)}, 0)) as locked`.execute(
				connection,
			)
			if (!rows[0]?.locked) return { busy: true as const }
			try {
				return {
					busy: false as const,
					value: await switchAndWork(access, ebWorkspaceId, work, options),
				}
			} finally {
				await sql`select pg_advisory_unlock(hashtextextended(${lockKey(access)}, 0))`.execute(
					connection,
				)
			}
		})
		if (!outcome.busy) return outcome.value
		if (Date.now() >= deadline) throw new FormError(LOCK_BUSY_MESSAGE)
		await sleep(200)
	}
}

/** How long a page tries for the super-admin key's lock before saying it is busy. */
export const PAGE_LOCK_WAIT_MS = 2000
export const LOCK_BUSY_MESSAGE =
	'An EmailBison upload is using this super-admin key right now. Try again in a minute.'

async function switchAndWork<T>(
	access: EmailBisonAccess,
	ebWorkspaceId: number,
	work: (client: EmailBisonClient, mode: 'workspace-key' | 'locked-switch') => Promise<T>,
	options: ClientOptions,
) {
	const client = superAdminClient(access, options)
	await client.switchWorkspace(ebWorkspaceId)
	return work(client, 'locked-switch')
}
