import { sql } from 'kysely'
import { data } from 'react-router'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { actingAccount, type ActingAccount } from '../workspaces/access.server.ts'
import { findLeadList } from './find-list.server.ts'

// "Remove leads that are in my other lists" (issue 36): for a list built from several sources,
// its leads whose normalised email (trimmed, lower case) another lead list of the same account
// has. Set operations in PostgreSQL: one count for the preview, one DELETE for the removal.

/** Lists still being filled: their leads are still arriving. */
const RUNNING = [0, 1]

/**
 * `l` (a lead of the list) is in another list of the account that this user may use (a member
 * restricted to some workspaces learns nothing of the others' lists), by normalised email.
 */
function inOtherListSql(account: ActingAccount, listId: string) {
	const usable = account.accessAllWorkspaces
		? sql``
		: sql`and op.workspace_id = any(${account.workspaces.map((w) => w.id)}::uuid[])`
	return sql<boolean>`lower(btrim(l.email)) in (
		select lower(btrim(o.email)) from leads o
		join processing_list op on op.id = o.list_id
		where op.user_id = ${account.accountId}::uuid and o.list_id <> ${listId}::uuid
			and coalesce(btrim(o.email), '') <> '' ${usable}
	)`
}

/** How many leads of the list the removal would take out. */
export async function inOtherListsPreview(context: AccountContext | null, listId: unknown) {
	const { list } = await findLeadList(context, listId)
	const account = actingAccount(context)
	const { rows } = await sql<{ n: number }>`
		select count(*)::int as n from leads l
		where l.list_id = ${list.id} and ${inOtherListSql(account, list.id)}
	`.execute(db)
	return { list, count: rows[0]?.n ?? 0, running: RUNNING.includes(list.status) }
}

/**
 * Removes them in one statement, which also counts them out of the list (`found`); returns
 * how many went. A list still being filled is refused (its leads are still arriving).
 */
export async function removeInOtherLists(context: AccountContext | null, listId: unknown) {
	const { list } = await findLeadList(context, listId)
	const account = actingAccount(context)
	if (RUNNING.includes(list.status))
		throw data('This list is still being filled: remove its duplicates once it is done.', {
			status: 409,
		})
	const { rows } = await sql<{ n: number }>`
		with gone as (
			delete from leads l
			where l.list_id = ${list.id} and ${inOtherListSql(account, list.id)}
			returning 1
		), counted as (
			update processing_list p
			set found = greatest(p.found - (select count(*)::int from gone), 0), updated_at = now()
			where p.id = ${list.id} and p.status <> all(${RUNNING}::int[])
		)
		select count(*)::int as n from gone
	`.execute(db)
	return rows[0]?.n ?? 0
}
