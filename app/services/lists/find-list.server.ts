import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'

export type LeadList = {
	id: string
	name: string
	sourceType: string
	status: number
	requested: number
	found: number
	progress: number
	error: string | null
	fileName: string | null
	fileSize: number | null
	workspaceId: string | null
	createdAt: Date
	startedAt: Date | null
	finishedAt: Date | null
}

/**
 * A lead list of the account, in a workspace this user may use; anything else (another
 * account's list, a member's list outside its workspaces, not a uuid) is a 404.
 */
export async function findLeadList(context: AccountContext | null, listId: unknown) {
	const account = actingAccount(context)
	if (!isUuid(listId)) notFound('This list')
	const row = await db
		.selectFrom('processing_list')
		.select([
			'id',
			'name',
			'source_type',
			'status',
			'requested',
			'found',
			'progress',
			'error',
			'file_name',
			'file_size',
			'workspace_id',
			'created_at',
			'started_at',
			'finished_at',
		])
		.where('id', '=', listId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!row || !canUseWorkspace(account, row.workspace_id)) notFound('This list')
	const list: LeadList = {
		id: row.id,
		name: row.name,
		sourceType: row.source_type,
		status: row.status,
		requested: row.requested,
		found: row.found,
		progress: row.progress,
		error: row.error,
		fileName: row.file_name,
		fileSize: row.file_size,
		workspaceId: row.workspace_id,
		createdAt: row.created_at,
		startedAt: row.started_at,
		finishedAt: row.finished_at,
	}
	return { account, list }
}

/** A company list of the account, in a workspace this user may use; else a 404. */
export async function findCompanyList(context: AccountContext | null, listId: unknown) {
	const account = actingAccount(context)
	if (!isUuid(listId)) notFound('This list')
	const row = await db
		.selectFrom('company_scraping_list')
		.select([
			'id',
			'name',
			'source_type',
			'status',
			'requested',
			'found',
			'progress',
			'error',
			'workspace_id',
			'created_at',
		])
		.where('id', '=', listId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!row || !canUseWorkspace(account, row.workspace_id)) notFound('This list')
	return { account, list: row }
}
