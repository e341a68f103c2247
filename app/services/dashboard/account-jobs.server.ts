import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'

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
	options: { limit: number; after: { at: Date; id: string } | null },
) {
	const account = actingAccount(context)
	const ids = account.workspaces.map((w) => w.id)
	return db
		.selectFrom('account_jobs')
		.select(COLUMNS)
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
