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

async function selectItem(accountId: string, type: AttachableType, id: string) {
	switch (type) {
		case 'list':
			return db
				.selectFrom('processing_list')
				.select(['id', 'name', 'workspace_id'])
				.where('id', '=', id)
				.where('user_id', '=', accountId)
				.executeTakeFirst()
		case 'company-list':
			return db
				.selectFrom('company_scraping_list')
				.select(['id', 'name', 'workspace_id'])
				.where('id', '=', id)
				.where('user_id', '=', accountId)
				.executeTakeFirst()
		case 'domain':
			return db
				.selectFrom('domains')
				.select(['id', 'name', 'workspace_id'])
				.where('id', '=', id)
				.where('user_id', '=', accountId)
				.executeTakeFirst()
		case 'inbox-order': {
			const order = await db
				.selectFrom('inbox_orders')
				.select([
					'id',
					'provider',
					'inboxes_per_domain',
					'domain_ids',
					'workspace_id',
					'created_at',
				])
				.where('id', '=', id)
				.where('user_id', '=', accountId)
				.executeTakeFirst()
			if (!order) return undefined
			const provider = order.provider === 'google' ? 'Google' : 'Microsoft'
			const date = new Date(order.created_at).toLocaleDateString('en', { dateStyle: 'medium' })
			const count = order.inboxes_per_domain * Math.max(order.domain_ids.length, 1)
			return {
				id: order.id,
				name: `${provider} inboxes (${count}), ordered ${date}`,
				workspace_id: order.workspace_id,
			}
		}
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
 * with the rows that carry its workspace (leads, companies, uploads, inboxes).
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
		switch (item.type) {
			case 'list':
				await trx
					.updateTable('processing_list')
					.set({ workspace_id: target.id, updated_at: now })
					.where('id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				await trx
					.updateTable('leads')
					.set({ workspace_id: target.id })
					.where('list_id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				await trx
					.updateTable('emailbison_upload')
					.set({ workspace_id: target.id, updated_at: now })
					.where('list_id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				break
			case 'company-list':
				await trx
					.updateTable('company_scraping_list')
					.set({ workspace_id: target.id, updated_at: now })
					.where('id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				await trx
					.updateTable('companies')
					.set({ workspace_id: target.id })
					.where('list_id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				break
			case 'domain':
				await trx
					.updateTable('domains')
					.set({ workspace_id: target.id, updated_at: now })
					.where('id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				break
			case 'inbox-order':
				await trx
					.updateTable('inbox_orders')
					.set({ workspace_id: target.id, updated_at: now })
					.where('id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				await trx
					.updateTable('inboxes')
					.set({ workspace_id: target.id, updated_at: now })
					.where('order_id', '=', item.id)
					.where('user_id', '=', accountId)
					.execute()
				break
		}
	})
	return { item, workspace: target, moved: true }
}
