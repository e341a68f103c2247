import { sql, type ExpressionBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError, isUuid } from '../../utils/http-errors.server.ts'
import type { BulkFilter, BulkHandler, BulkOutcome, BulkRow } from '../bulk/types.ts'
import { isStatusFilter } from '../verification/statuses.ts'
import { actingAccount, type ActingAccount } from '../workspaces/access.server.ts'
import { deleteRowsOfLists } from './delete-rows.server.ts'
import { findLeadList } from './find-list.server.ts'
import { searchCondition, statusCondition } from './leads-page.server.ts'

/**
 * Bulk actions on the leads of a list page (issue 34, decision 0089): delete, and move to
 * another lead list. Each batch is one set operation in PostgreSQL over the ids, with the
 * lists' counts (`found`) changed in the same statement; never a query per lead.
 */

/** Lead lists of the account in a workspace this user may use (as findLeadList says). */
export function usableLists(account: ActingAccount) {
	const ids = account.workspaces.map((w) => w.id)
	return (eb: ExpressionBuilder<DB, 'processing_list'>) =>
		eb.and([
			eb('processing_list.user_id', '=', account.accountId),
			eb.or([
				...(ids.length ? [eb('processing_list.workspace_id', 'in', ids)] : []),
				...(account.accessAllWorkspaces ? [eb('processing_list.workspace_id', 'is', null)] : []),
				eb.val(false),
			]),
		])
}

/** The leads a filter of the page selects: its list, its search and its email status. */
function filtered(account: ActingAccount, filter: BulkFilter) {
	const listId = isUuid(filter.list) ? filter.list : null
	return db
		.selectFrom('leads')
		.where('leads.list_id', '=', listId ?? '00000000-0000-0000-0000-000000000000')
		.where((eb) =>
			eb.exists(
				eb
					.selectFrom('processing_list')
					.select('processing_list.id')
					.whereRef('processing_list.id', '=', 'leads.list_id')
					.where(usableLists(account)),
			),
		)
		.$if(Boolean(filter.q), (q) => q.where(searchCondition(filter.q!)))
		.$if(isStatusFilter(filter.status ?? null), (q) =>
			q.where(statusCondition(filter.status as Parameters<typeof statusCondition>[0])),
		)
}

const RUNNING = [0, 1]
const STILL_FILLING = 'its list is still being filled'

/** The rows' lists that are running (an import or a search writes them and their count). */
async function runningLists(ids: string[]) {
	const rows = await db
		.selectFrom('leads')
		.innerJoin('processing_list as p', 'p.id', 'leads.list_id')
		.select('leads.id')
		.where('leads.id', 'in', ids)
		.where('p.status', 'in', RUNNING)
		.execute()
	return new Set(rows.map((r) => r.id))
}

/** Deletes the leads and counts them out of their lists, in one statement. */
async function deleteLeads(rows: BulkRow[]) {
	const outcomes = new Map<string, BulkOutcome>()
	const busy = await runningLists(rows.map((r) => r.id))
	const ids = rows.map((r) => r.id).filter((id) => !busy.has(id))
	for (const id of busy) outcomes.set(id, { skipped: STILL_FILLING })
	for (const [id, outcome] of await deleteRowsOfLists(
		{ rows: 'leads', lists: 'processing_list' },
		ids,
	))
		outcomes.set(id, outcome)
	return outcomes
}

/**
 * Moves the leads into the target list, and the counts of the lists they leave and of the
 * target with them, in one statement. A lead whose email the target already has (or has twice
 * in this batch) stays where it is: a list holds an email once.
 */
async function moveLeads(account: AccountContext, rows: BulkRow[], targetId: string) {
	const outcomes = new Map<string, BulkOutcome>()
	// read again per batch: a target list deleted (or out of reach) meanwhile takes no lead
	const target = await findLeadList(account, targetId).catch(() => null)
	if (!target) {
		for (const row of rows) outcomes.set(row.id, { skipped: 'the target list is gone' })
		return outcomes
	}
	const busy = await runningLists(rows.map((r) => r.id))
	for (const id of busy) outcomes.set(id, { skipped: STILL_FILLING })
	const ids = rows.map((r) => r.id).filter((id) => !busy.has(id))
	if (ids.length === 0) return outcomes
	const { rows: moved } = await sql<{ id: string }>`
		with target as (
			select id, workspace_id from processing_list
			where id = ${targetId} and status <> all(${RUNNING}::int[])
			for update
		), candidates as (
			select distinct on (lower(l.email)) l.id, l.list_id
			from leads l, target t
			where l.id = any(${ids}::uuid[]) and l.list_id <> t.id
				and l.list_id in (select id from processing_list where status <> all(${RUNNING}::int[]))
				and not exists (
					select 1 from leads o where o.list_id = t.id and lower(o.email) = lower(l.email)
				)
			order by lower(l.email), l.id
		), moved as (
			update leads l set list_id = t.id, workspace_id = t.workspace_id
			from candidates c, target t
			where l.id = c.id
			returning l.id, c.list_id as from_list
		), left_lists as (
			update processing_list p
			set found = greatest(p.found - m.n, 0), updated_at = now()
			from (select from_list, count(*)::int as n from moved group by from_list) m
			where p.id = m.from_list
		), joined as (
			update processing_list p
			set found = p.found + (select count(*)::int from moved), updated_at = now()
			from target t
			where p.id = t.id and exists (select 1 from moved)
		)
		select id from moved
	`.execute(db)
	const done = new Set(moved.map((r) => r.id))
	const already = await db
		.selectFrom('leads')
		.select('id')
		.where('id', 'in', ids)
		.where('list_id', '=', targetId)
		.execute()
	const inTarget = new Set(already.map((r) => r.id))
	for (const id of ids) {
		if (done.has(id)) outcomes.set(id, 'done')
		else if (inTarget.has(id)) outcomes.set(id, { skipped: 'already in that list' })
		else outcomes.set(id, { skipped: 'that list already has this email' })
	}
	return outcomes
}

export const leadBulk: BulkHandler = {
	kind: 'leads',
	authorize: (account) => void actingAccount(account),
	// a batch is one statement: larger batches, fewer round trips
	batchSize: 1000,
	async owned(account, ids) {
		const valid = ids.filter(isUuid)
		if (valid.length === 0) return []
		return db
			.selectFrom('leads')
			.innerJoin('processing_list', 'processing_list.id', 'leads.list_id')
			.select(['leads.id', 'leads.email as name'])
			.where(usableLists(actingAccount(account)))
			.where('leads.id', 'in', valid)
			.execute()
	},
	async matching(account, filter, afterId, limit) {
		return filtered(actingAccount(account), filter)
			.select(['leads.id', 'leads.email as name'])
			.$if(afterId !== null, (q) => q.where('leads.id', '>', afterId!))
			.orderBy('leads.id')
			.limit(limit)
			.execute()
	},
	async count(account, filter) {
		const row = await filtered(actingAccount(account), filter)
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.executeTakeFirstOrThrow()
		return Number(row.n)
	},
	actions: {
		delete: {
			label: 'Delete leads',
			runBatch: (_account, rows) => deleteLeads(rows),
			run: async (_account, row) => (await deleteLeads([row])).get(row.id) ?? 'done',
		},
		move: {
			label: 'Move leads',
			async params(params, account) {
				if (!isUuid(params.listId)) throw new FormError('Pick a list.', 'action')
				const { list } = await findLeadList(account, params.listId)
				if (RUNNING.includes(list.status))
					throw new FormError(
						`“${list.name}” is still being filled: move leads into it once it has finished.`,
						'action',
					)
			},
			runBatch: (account, rows, params) => moveLeads(account, rows, params.listId!),
			run: async (account, row, params) =>
				(await moveLeads(account, [row], params.listId!)).get(row.id) ?? 'done',
		},
	},
}

/** The other lead lists a list page may move leads into (usable, not running), by name. */
export async function moveTargets(context: AccountContext | null, listId: string) {
	const account = actingAccount(context)
	return db
		.selectFrom('processing_list')
		.select(['id', 'name'])
		.where(usableLists(account))
		.where('id', '<>', listId)
		.where('status', 'not in', RUNNING)
		.orderBy('created_at', 'desc')
		.limit(200)
		.execute()
}
