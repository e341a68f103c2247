import { sql, type Compilable } from 'kysely'
import { db, prepareStatement } from '../../../db/index.server.ts'
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

/**
 * findLeadList's check and a read of the list's rows in ONE statement: one round trip where
 * two cost the web process and the database a wake-up each (decision 0103). `rows(listId)`
 * runs beside the account's list row, in its own order; its rows come back only when the list
 * may be used, else the same 404 as findLeadList's. `prepare`: sent as a prepared statement
 * (one per form of the query's text), planned once per connection; not for a read whose plan
 * needs a parameter's value (a LIKE prefix uses its index only when the planner sees it).
 */
export async function leadListRows<R>(
	context: AccountContext | null,
	listId: unknown,
	rows: (listId: string) => Compilable<R>,
	{ prepare }: { prepare: boolean },
): Promise<R[]> {
	const account = actingAccount(context)
	if (!isUuid(listId)) notFound('This list')
	// numbered in the read's order, then sorted by that number: a join promises no order
	const compiled = sql<ListRow<R>>`
		select l.workspace_id as list_workspace_id, r.*
		from processing_list l
		left join lateral (select row_number() over () as list_row, q.* from (${rows(listId)}) q) r
			on true
		where l.id = ${listId} and l.user_id = ${account.accountId}
		order by r.list_row`.compile(db)
	if (prepare) prepareStatement('lead_list_rows', compiled.sql, { perText: true })
	const found = (await db.executeQuery(compiled)).rows
	if (!found.length || !canUseWorkspace(account, found[0]!.list_workspace_id)) notFound('This list')
	const read: R[] = []
	for (const { list_workspace_id: _, list_row, ...row } of found) {
		if (list_row !== null) read.push(row as R)
	}
	return read
}

type ListRow<R> = R & { list_workspace_id: string | null; list_row: number | null }

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
