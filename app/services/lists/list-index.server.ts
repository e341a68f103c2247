import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { visibleNewestFirst, type NewestFirstAfter } from '../workspaces/visible-page.server.ts'

// Every lead or company list the user may see, across its workspaces, newest first, paged by
// keyset on (created_at, id) (visibleNewestFirst): what findLeadList lets this user see.

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
	options: { limit: number; after: NewestFirstAfter },
): Promise<(ListIndexRow & { page_at: string })[]> {
	const account = actingAccount(context)
	const table = kind === 'leads' ? 'processing_list' : 'company_scraping_list'
	const query = db
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
	return visibleNewestFirst(query, account, options).execute()
}
