import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { forbidden, isUuid, notFound } from '../../utils/http-errors.server.ts'
import {
	canChangeDomains,
	canUseWorkspace,
	canViewDomains,
	type ActingAccount,
} from './access.server.ts'
import { findWorkspace } from './find-workspace.server.ts'
import { ATTACHABLE_TYPES, type AttachableType } from './schemas.ts'

export type AttachableItem = {
	type: AttachableType
	id: string
	name: string
	workspaceId: string | null
	/** whether this user may move it (domains and inbox orders need a write scope) */
	canMove: boolean
}

const LABELS: Record<AttachableType, string> = {
	list: 'This lead list',
	'company-list': 'This company list',
	domain: 'This domain',
	'inbox-order': 'This inbox order',
}

const isDomainTool = (type: AttachableType) => type === 'domain' || type === 'inbox-order'

function parseType(type: unknown): AttachableType {
	if (!(ATTACHABLE_TYPES as readonly unknown[]).includes(type)) notFound('This item')
	return type as AttachableType
}

// Where each kind of item lives, and the rows that carry its workspace with it.
type Carrier = {
	table: string
	key: 'id' | 'list_id' | 'company_list_id' | 'order_id'
	stamped: boolean
}
const ITEM_TABLES: Record<Exclude<AttachableType, 'inbox-order'>, string> = {
	list: 'processing_list',
	'company-list': 'company_scraping_list',
	domain: 'domains',
}
const CARRIERS: Record<AttachableType, Carrier[]> = {
	list: [
		{ table: 'processing_list', key: 'id', stamped: true },
		{ table: 'leads', key: 'list_id', stamped: false },
		{ table: 'emailbison_upload', key: 'list_id', stamped: true },
		// a list's enrichment runs are shown where the list is (dashboard, enrichments page)
		{ table: 'enrichment_runs', key: 'list_id', stamped: true },
	],
	'company-list': [
		{ table: 'company_scraping_list', key: 'id', stamped: true },
		{ table: 'companies', key: 'list_id', stamped: false },
		{ table: 'enrichment_runs', key: 'company_list_id', stamped: true },
	],
	domain: [{ table: 'domains', key: 'id', stamped: true }],
	'inbox-order': [
		{ table: 'inbox_orders', key: 'id', stamped: true },
		{ table: 'inboxes', key: 'order_id', stamped: true },
	],
}

type ItemRow = { id: string; name: string; workspace_id: string | null }

async function selectItem(
	accountId: string,
	type: AttachableType,
	id: string,
): Promise<ItemRow | undefined> {
	if (type !== 'inbox-order') {
		const { rows } = await sql<ItemRow>`
			select id, name, workspace_id from ${sql.table(ITEM_TABLES[type])}
			where id = ${id} and user_id = ${accountId}
		`.execute(db)
		return rows[0]
	}
	const order = await db
		.selectFrom('inbox_orders')
		.select(['id', 'provider', 'inboxes_per_domain', 'domain_ids', 'workspace_id', 'created_at'])
		.where('id', '=', id)
		.where('user_id', '=', accountId)
		.executeTakeFirst()
	if (!order) return undefined
	// An inbox order has no name of its own: it is named by what was ordered, and when.
	const provider = order.provider === 'google' ? 'Google' : 'Microsoft'
	const date = new Date(order.created_at).toLocaleDateString('en', { dateStyle: 'medium' })
	const count = order.inboxes_per_domain * Math.max(order.domain_ids.length, 1)
	return {
		id: order.id,
		name: `${provider} inboxes (${count}), ordered ${date}`,
		workspace_id: order.workspace_id,
	}
}

/**
 * A list, company list, domain or inbox order of the request's account, in a
 * workspace the user may use (else 404). Domains and inbox orders need a domain
 * scope to be seen (else 403).
 */
export async function findAttachableItem(
	account: ActingAccount,
	type: unknown,
	id: unknown,
): Promise<AttachableItem> {
	const kind = parseType(type)
	if (!isUuid(id)) notFound(LABELS[kind])
	const row = await selectItem(account.accountId, kind, id)
	if (!row || !canUseWorkspace(account, row.workspace_id)) notFound(LABELS[kind])
	if (isDomainTool(kind) && !canViewDomains(account)) {
		forbidden('You do not have access to domain management.')
	}
	return {
		type: kind,
		id: row.id,
		name: row.name,
		workspaceId: row.workspace_id,
		canMove: isDomainTool(kind) ? canChangeDomains(account) : true,
	}
}

/**
 * Moves the item into another workspace of the account that the user may use,
 * with the rows that carry its workspace (leads, companies, uploads, enrichment runs, inboxes).
 */
export async function moveToWorkspace(
	account: ActingAccount,
	type: unknown,
	id: unknown,
	workspaceId: unknown,
) {
	const item = await findAttachableItem(account, type, id)
	const target = await findWorkspace(account, workspaceId)
	if (!item.canMove) forbidden('You can view domains and inbox orders but not change them.')
	if (item.workspaceId === target.id) return { item, workspace: target, moved: false }
	const accountId = account.accountId
	await db.transaction().execute(async (trx) => {
		const now = new Date()
		for (const { table, key, stamped } of CARRIERS[item.type]) {
			await sql`
				update ${sql.table(table)}
				set workspace_id = ${target.id}${stamped ? sql`, updated_at = ${now}` : sql``}
				where ${sql.ref(key)} = ${item.id} and user_id = ${accountId}
			`.execute(trx)
		}
	})
	return { item, workspace: target, moved: true }
}
