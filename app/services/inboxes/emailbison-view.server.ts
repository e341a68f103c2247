import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { EmailBisonError } from '../../integrations/emailbison.server.ts'
import { domainAccount } from '../domains/access.server.ts'
import { findDomain } from '../domains/domains.server.ts'
import { loadEmailBisonAccess } from '../emailbison/settings.server.ts'
import { superAdminClient, type ClientOptions } from '../emailbison/workspace-client.server.ts'

/** What EmailBison says of one of our inboxes; null fields could not be read from its answer. */
export type EmailBisonInbox = {
	connected: boolean | null
	dailyLimit: number | null
	warmup: string | null
	/** the fields its answer did not let us read, in words */
	unread: string[]
}

export type InboxBeside = {
	id: string
	address: string
	provider: string
	status: string
	/** EmailBison's view; null: the address is not in the workspace */
	emailBison: EmailBisonInbox | null
}

export type InboxesBeside = {
	inboxes: InboxBeside[]
	/** not-connected: no EmailBison settings; error: its answer could not be read (why) */
	emailBison: { state: 'read' } | { state: 'not-connected' } | { state: 'error'; message: string }
}

const first = (item: Record<string, unknown>, keys: string[]) => {
	for (const key of keys) {
		const path = key.split('.')
		let value: unknown = item
		for (const part of path)
			value =
				value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined
		if (value !== undefined && value !== null && value !== '') return value
	}
	return undefined
}

/**
 * Reads one sender-email item defensively: only `id` and `email` are documented, so each field
 * is looked for under the names integrators report (UNCONFIRMED) and is "could not read" when
 * none is there or its value makes no sense, never a guess.
 */
export function readSenderEmail(item: Record<string, unknown>): EmailBisonInbox {
	const unread: string[] = []
	let connected: boolean | null = null
	const status = first(item, ['status', 'connection_status', 'connected', 'is_connected'])
	if (typeof status === 'boolean') connected = status
	else if (typeof status === 'string') {
		if (/disconnect|error|fail|invalid/i.test(status)) connected = false
		else if (/connect|active|ok/i.test(status)) connected = true
	}
	if (connected === null) unread.push('connection')
	const limit = Number(first(item, ['daily_limit', 'emails_per_day', 'max_emails_per_day']))
	const dailyLimit = Number.isFinite(limit) && limit >= 0 ? limit : null
	if (dailyLimit === null) unread.push('daily limit')
	const rawWarmup = first(item, ['warmup_enabled', 'warmup_status', 'warmup.enabled', 'warmup'])
	const warmup =
		typeof rawWarmup === 'boolean'
			? rawWarmup
				? 'on'
				: 'off'
			: typeof rawWarmup === 'string'
				? rawWarmup.toLowerCase()
				: null
	if (warmup === null) unread.push('warm-up')
	return { connected, dailyLimit, warmup, unread }
}

/**
 * The domain's inboxes (our order) beside EmailBison's view of the same addresses, read with
 * the account's EmailBison key through its client (its retries on 429/5xx; a read, so nothing
 * to do exactly once). An EmailBison that cannot be read leaves our side whole and says why.
 */
export async function inboxesBesideEmailBison(
	account: AccountContext | null,
	domainId: string,
	options: { db?: Kysely<DB>; client?: ClientOptions } = {},
): Promise<InboxesBeside> {
	const db = options.db ?? defaultDb
	const acting = domainAccount(account, 'view')
	const domain = await findDomain(acting, domainId, db)
	const rows = await db
		.selectFrom('inboxes')
		.select(['id', 'address', 'provider', 'status'])
		.where('domain_id', '=', domain.id)
		.where('ended_at', 'is', null)
		.orderBy('address')
		.execute()
	const ours = rows.map((r) => ({ ...r, emailBison: null }))
	if (!rows.length) return { inboxes: ours, emailBison: { state: 'read' } }
	const access = await loadEmailBisonAccess(acting.accountId)
	if (!access) return { inboxes: ours, emailBison: { state: 'not-connected' } }
	try {
		const items = await superAdminClient(access, {
			timeoutMs: 10_000,
			...options.client,
		}).listSenderEmails()
		const byAddress = new Map(items.map((item) => [item.email.trim().toLowerCase(), item]))
		return {
			inboxes: rows.map((r) => {
				const item = byAddress.get(r.address.toLowerCase())
				return { ...r, emailBison: item ? readSenderEmail(item) : null }
			}),
			emailBison: { state: 'read' },
		}
	} catch (error) {
		const message =
			error instanceof EmailBisonError ? error.message : 'EmailBison could not be reached.'
		return { inboxes: ours, emailBison: { state: 'error', message } }
	}
}
