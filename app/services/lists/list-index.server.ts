import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'

// Every lead or company list the user may see, across its workspaces, newest first, paged by
// keyset on (created_at, id): the same visibility rule as findLeadList (canUseWorkspace) in SQL.

export type ListIndexRow = {
	id: string
	name: string
	source_type: string
	status: number
	progress: number
	requested: number
	found: number
	error: string | null
	workspace_id: string | null
	created_at: Date
	finished_at: Date | null
}

export async function listIndexPage(
	context: AccountContext | null,
	kind: 'leads' | 'companies',
	options: { limit: number; after: { at: Date; id: string } | null },
): Promise<ListIndexRow[]> {
	const account = actingAccount(context)
	const ids = account.workspaces.map((w) => w.id)
	const table = kind === 'leads' ? 'processing_list' : 'company_scraping_list'
	const rows = await db
		.selectFrom(table)
		.select([
			'id',
			'name',
			'source_type',
			'status',
			'progress',
			'requested',
			'found',
			'error',
			'workspace_id',
			'created_at',
			'finished_at',
		])
		.where('user_id', '=', account.accountId)
		.where((eb) =>
			eb.or([
				...(ids.length ? [eb('workspace_id', 'in', ids)] : []),
				...(account.accessAllWorkspaces ? [eb('workspace_id', 'is', null)] : []),
				eb.val(false),
			]),
		)
		.$if(options.after !== null, (q) =>
			q.where(sql<boolean>`(created_at, id) < (${options.after!.at}, ${options.after!.id})`),
		)
		.orderBy('created_at', 'desc')
		.orderBy('id', 'desc')
		.limit(options.limit + 1)
		.execute()
	return rows
}
