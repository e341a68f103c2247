import type { Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isOwner, type AccountContext } from '../../context.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { openSecret } from '../../utils/secrets.server.ts'
import { recordAudit } from '../audit/audit-log.server.ts'
import { domainAccount } from '../domains/access.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { formatDate } from '../../utils/money.ts'
import { billedQuantity, recordQuantity, setStripeQuantity } from './billing.server.ts'
import { toCsv } from './csv.ts'
import { CREDENTIALS_PURPOSE, type Credentials } from './fulfilment.server.ts'

export const INBOX_STATUSES = ['active', 'cancelled'] as const

export type InboxFilters = {
	domainId?: string | null
	workspaceId?: string | null
	status?: string | null
}

function visibleInboxes(acting: ActingAccount, filters: InboxFilters, db: Kysely<DB>) {
	const ids = acting.workspaces.map((w) => w.id)
	let query = db
		.selectFrom('inboxes')
		.leftJoin('domains', 'domains.id', 'inboxes.domain_id')
		.leftJoin('workspaces', 'workspaces.id', 'inboxes.workspace_id')
		.where('inboxes.user_id', '=', acting.accountId)
		.where((eb) =>
			eb.or([
				...(ids.length ? [eb('inboxes.workspace_id', 'in', ids)] : []),
				...(acting.accessAllWorkspaces ? [eb('inboxes.workspace_id', 'is', null)] : []),
				eb.val(false),
			]),
		)
	if (filters.domainId && isUuid(filters.domainId))
		query = query.where('inboxes.domain_id', '=', filters.domainId)
	if (filters.workspaceId && isUuid(filters.workspaceId))
		query = query.where('inboxes.workspace_id', '=', filters.workspaceId)
	if (filters.status === 'active')
		query = query
			.where('inboxes.status', '=', 'active')
			.where('inboxes.cancel_at_period_end', '=', false)
	if (filters.status === 'cancelling')
		query = query
			.where('inboxes.status', '=', 'active')
			.where('inboxes.cancel_at_period_end', '=', true)
	if (filters.status === 'cancelled') query = query.where('inboxes.status', '=', 'cancelled')
	return query
}

/** The account's inboxes by domain, workspace and status. */
export async function listInboxes(
	account: AccountContext | null,
	filters: InboxFilters = {},
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	return visibleInboxes(acting, filters, db)
		.select([
			'inboxes.id',
			'inboxes.address',
			'inboxes.first_name',
			'inboxes.last_name',
			'inboxes.provider',
			'inboxes.status',
			'inboxes.cancel_at_period_end',
			'inboxes.period_end',
			'inboxes.ended_at',
			'inboxes.created_at',
			'domains.name as domain',
			'workspaces.name as workspace',
		])
		.orderBy('domains.name')
		.orderBy('inboxes.address')
		.limit(1000)
		.execute()
}

const SMTP_DEFAULTS = {
	google: {
		smtp_host: 'smtp.gmail.com',
		smtp_port: 587,
		imap_host: 'imap.gmail.com',
		imap_port: 993,
	},
	microsoft: {
		smtp_host: 'smtp.office365.com',
		smtp_port: 587,
		imap_host: 'outlook.office365.com',
		imap_port: 993,
	},
} as const

/** Whether this user's export carries the passwords: the owner's, or a platform admin's. */
export function exportShowsCredentials(account: AccountContext) {
	return isOwner(account) || account.platformRole === 'admin'
}

/**
 * The inboxes as the sender-import CSV outreach platforms take: Email, First Name, Last Name,
 * Password, SMTP Host, SMTP Port, IMAP Host, IMAP Port. Passwords only in the owner's (or a
 * platform admin's) export; every cell formula-safe. Ended inboxes are left out unless the
 * cancelled ones are asked for.
 */
export async function exportInboxesCsv(
	account: AccountContext | null,
	filters: InboxFilters = {},
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	const withSecrets = exportShowsCredentials(acting)
	const rows = await visibleInboxes(acting, filters, db)
		.$if(filters.status !== 'cancelled', (q) => q.where('inboxes.status', '=', 'active'))
		.select([
			'inboxes.id',
			'inboxes.address',
			'inboxes.first_name',
			'inboxes.last_name',
			'inboxes.provider',
			'inboxes.encrypted_credentials',
		])
		.orderBy('inboxes.address')
		.execute()
	const lines = rows.map((row) => {
		let creds: Partial<Credentials> = SMTP_DEFAULTS[row.provider as 'google' | 'microsoft'] ?? {}
		if (row.encrypted_credentials) {
			const opened = JSON.parse(
				openSecret(row.encrypted_credentials, CREDENTIALS_PURPOSE, row.id),
			) as Credentials
			creds = opened
		}
		return [
			row.address,
			row.first_name,
			row.last_name,
			withSecrets ? (creds.password ?? '') : '',
			creds.smtp_host,
			creds.smtp_port,
			creds.imap_host,
			creds.imap_port,
		]
	})
	return toCsv([
		[
			'Email',
			'First Name',
			'Last Name',
			'Password',
			'SMTP Host',
			'SMTP Port',
			'IMAP Host',
			'IMAP Port',
		],
		...lines,
	])
}

/**
 * Cancels an inbox at its period end (or takes that back before then). Its order bills one inbox
 * less (or more) from the next month: Stripe is told first, so a failure changes nothing.
 */
export async function setInboxCancel(
	account: AccountContext | null,
	id: string,
	cancel: boolean,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	if (!isUuid(id)) notFound('This inbox')
	const inbox = await visibleInboxes(acting, {}, db)
		.select([
			'inboxes.id',
			'inboxes.address',
			'inboxes.status',
			'inboxes.cancel_at_period_end',
			'inboxes.period_end',
			'inboxes.ended_at',
			'inboxes.order_id',
		])
		.where('inboxes.id', '=', id)
		.executeTakeFirst()
	if (!inbox) notFound('This inbox')
	if (inbox.status !== 'active') {
		throw new FormError(
			`${inbox.address} ${inbox.ended_at ? `ended on ${formatDate(inbox.ended_at)}` : 'is already cancelled'}.`,
		)
	}
	if (inbox.cancel_at_period_end === cancel) {
		throw new FormError(
			cancel
				? `${inbox.address} already ends on ${formatDate(inbox.period_end) ?? 'its period end'}.`
				: `${inbox.address} is not cancelled; it renews as usual.`,
		)
	}
	const order = inbox.order_id
		? await db
				.selectFrom('inbox_orders')
				.selectAll()
				.where('id', '=', inbox.order_id)
				.executeTakeFirst()
		: undefined
	if (!cancel) {
		if (inbox.period_end && inbox.period_end <= new Date()) {
			throw new FormError(`${inbox.address} ended on ${formatDate(inbox.period_end)}.`)
		}
		if (order && !['active', 'past_due'].includes(order.billing_status)) {
			throw new FormError(`The billing of ${inbox.address} has ended; order a new inbox instead.`)
		}
	}
	const quantity = order ? await billedQuantity(db, order, { inboxId: inbox.id, cancel }) : null
	if (order && quantity !== null) await setStripeQuantity(order, quantity)
	await db.transaction().execute(async (trx) => {
		await trx
			.updateTable('inboxes')
			.set({ cancel_at_period_end: cancel, updated_at: new Date() })
			.where('id', '=', inbox.id)
			.execute()
		if (order && quantity !== null) await recordQuantity(trx, order, quantity)
		await recordAudit(trx, {
			actorUserId: acting.user.id,
			action: cancel ? 'inboxes.inbox.cancel_at_period_end' : 'inboxes.inbox.resume',
			targetType: 'inbox',
			targetId: inbox.id,
			before: { cancel_at_period_end: inbox.cancel_at_period_end },
			after: { cancel_at_period_end: cancel, period_end: inbox.period_end, quantity },
		})
	})
	return inbox
}
