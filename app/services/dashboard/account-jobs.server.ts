import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'
import { visibleNewestFirst, type NewestFirstAfter } from '../workspaces/visible-page.server.ts'

// The account's jobs feed (account_jobs, decision 0053) for the API: newest first, in the
// workspaces the user may use, and one job by id.

const COLUMNS = [
	'id',
	'kind',
	'name',
	'status',
	'progress',
	'error',
	'list_id',
	'found',
	'workspace_id',
	'created_at',
] as const

export async function accountJobsPage(
	context: AccountContext | null,
	options: { limit: number; after: NewestFirstAfter },
) {
	const account = actingAccount(context)
	return visibleNewestFirst(
		db.selectFrom('account_jobs').select(COLUMNS),
		account,
		options,
	).execute()
}

export async function findAccountJob(context: AccountContext | null, jobId: unknown) {
	const account = actingAccount(context)
	if (!isUuid(jobId)) notFound('This job')
	const row = await db
		.selectFrom('account_jobs')
		.select(COLUMNS)
		.where('id', '=', jobId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!row || !canUseWorkspace(account, row.workspace_id)) notFound('This job')
	return row
}
