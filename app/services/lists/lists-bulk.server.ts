import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid } from '../../utils/http-errors.server.ts'
import type { BulkFilter, BulkHandler, BulkRow } from '../bulk/types.ts'
import { parseTarget, startRun } from '../enrichments/start-enrichment.server.ts'
import { deleteScrapeList } from '../leads/scrape-lists.server.ts'
import { findWorkspace } from '../workspaces/find-workspace.server.ts'
import { moveToWorkspace } from '../workspaces/move-to-workspace.server.ts'
import { actingAccount, type ActingAccount } from '../workspaces/access.server.ts'
import { LIST_KINDS, type ListKind } from './list-kinds.ts'

/**
 * Bulk actions on the lists of /scrape (issue 34, decision 0089): move to a workspace, delete,
 * and start an enrichment on each. Lead lists and company lists share the page, so a row is
 * either (ids are uuids: one table holds each); each list goes through the same service as the
 * single action on its row.
 */
export type ListBulkRow = BulkRow & { kind: ListKind }

/** Lists of the account in the current workspace scope (as /scrape shows them). */
function listsOf(account: ActingAccount, filter: BulkFilter, executor: Kysely<DB> = db) {
	const workspaces = account.workspaces.map((w) => w.id)
	const inScope = sql<boolean>`(${
		workspaces.length ? sql`workspace_id = any(${workspaces}::uuid[])` : sql`false`
	}${account.accessAllWorkspaces ? sql` or workspace_id is null` : sql``})`
	// the page's scope: its workspace (and, for those who see all, the unassigned lists)
	const current = isUuid(filter.workspace) ? filter.workspace : null
	const all = account.accessAllWorkspaces ? sql` or workspace_id is null` : sql``
	const page = !filter.workspace
		? sql<boolean>`true`
		: current
			? sql<boolean>`(workspace_id = ${current}${all})`
			: sql<boolean>`workspace_id is null`
	const named = filter.q
		? sql<boolean>`name ilike ${`%${likeEscape(filter.q)}%`}`
		: sql<boolean>`true`
	const of = (kind: ListKind) =>
		executor
			.selectFrom(LIST_KINDS[kind].listTable as 'processing_list')
			.select(['id', 'name', sql<ListKind>`${kind}::text`.as('kind')])
			.where('user_id', '=', account.accountId)
			.where(inScope)
			.where(page)
			.where(named)
	return executor.selectFrom(of('leads').unionAll(of('companies')).as('l')).selectAll()
}

function likeEscape(value: string) {
	return value.replace(/[\\%_]/g, (c) => `\\${c}`)
}

const kindOf = (row: BulkRow) => (row as ListBulkRow).kind

export const listBulk: BulkHandler = {
	kind: 'lists',
	authorize: (account) => void actingAccount(account),
	async owned(account, ids) {
		const valid = ids.filter(isUuid)
		if (valid.length === 0) return []
		return listsOf(actingAccount(account), {}).where('l.id', 'in', valid).execute()
	},
	async matching(account, filter, afterId, limit) {
		return listsOf(actingAccount(account), filter)
			.$if(afterId !== null, (q) => q.where('l.id', '>', afterId!))
			.orderBy('l.id')
			.limit(limit)
			.execute()
	},
	async count(account, filter) {
		const rows = await listsOf(actingAccount(account), filter).execute()
		return rows.length
	},
	actions: {
		move: {
			label: 'Move to workspace',
			async params(params, account) {
				if (!isUuid(params.workspaceId)) throw new FormError('Pick a workspace.', 'action')
				await findWorkspace(actingAccount(account), params.workspaceId)
			},
			async run(account, row, params) {
				const type = kindOf(row) === 'leads' ? 'list' : 'company-list'
				const { moved, workspace } = await moveToWorkspace(
					actingAccount(account),
					type,
					row.id,
					params.workspaceId,
				)
				return moved ? 'done' : { skipped: `already in ${workspace.name}` }
			},
		},
		delete: {
			label: 'Delete',
			async run(account, row) {
				// the single delete's rule: a list in use is refused, skipped with the reason
				await deleteScrapeList(account, kindOf(row), row.id)
				return 'done'
			},
		},
		enrich: {
			label: 'Enrich',
			params(params) {
				parseTarget(params.target ?? '')
				if (params.payWith !== 'ownKey' && params.payWith !== 'credits')
					throw new FormError('Choose how to pay.', 'action')
			},
			// the enrich page's own start, per list: its checks, its credit hold, its job
			async run(account, row, params) {
				await startRun(account, {
					listId: row.id,
					source: kindOf(row),
					target: params.target!,
					payWith: params.payWith as 'ownKey' | 'credits',
				})
				return 'done'
			},
		},
	},
}

/** The kinds of the selected lists the account may export (a mix is refused by the caller). */
export async function ownedLists(context: AccountContext | null, ids: string[]) {
	const valid = ids.filter(isUuid)
	if (valid.length === 0) return []
	return (await listsOf(actingAccount(context), {})
		.where('l.id', 'in', valid)
		.orderBy('l.name')
		.execute()) as ListBulkRow[]
}

/** The lists a filter of /scrape selects (for an export of all matching it). */
export async function matchingLists(context: AccountContext | null, filter: BulkFilter) {
	return (await listsOf(actingAccount(context), filter)
		.orderBy('l.name')
		.execute()) as ListBulkRow[]
}
