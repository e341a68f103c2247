import { sql, type SelectQueryBuilder } from 'kysely'
import type { ActingAccount } from './access.server.ts'

// One page of an account's rows the user may see, newest first: the rows of its workspaces
// (and the unassigned ones for those who see every workspace: canUseWorkspace in SQL), keyset
// on (created_at, id) so a page far in costs what the first does. The lists index and the
// jobs feed of the API page this way; the table needs user_id, workspace_id, created_at, id.

/**
 * A (created_at, id) place in a newest-first order: the last row of the previous page. `at` is
 * PostgreSQL's own time to the microsecond (`page_at` of a page's rows): a JavaScript Date keeps
 * milliseconds, and a cursor cut to them skipped the rows made in the same millisecond.
 */
export type NewestFirstAfter = { at: string; id: string } | null

export function visibleNewestFirst<DB, TB extends keyof DB, O>(
	query: SelectQueryBuilder<DB, TB, O>,
	account: ActingAccount,
	options: { limit: number; after: NewestFirstAfter },
) {
	const ids = account.workspaces.map((w) => w.id)
	const seen = [
		...(ids.length ? [sql<boolean>`workspace_id in (${sql.join(ids)})`] : []),
		...(account.accessAllWorkspaces ? [sql<boolean>`workspace_id is null`] : []),
	]
	const after = options.after
	return query
		.select(
			sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
				'page_at',
			),
		)
		.where(sql<boolean>`user_id = ${account.accountId}`)
		.where(seen.length ? sql<boolean>`(${sql.join(seen, sql` or `)})` : sql<boolean>`false`)
		.$if(after !== null, (q) =>
			q.where(sql<boolean>`(created_at, id) < (${after!.at}::timestamptz, ${after!.id})`),
		)
		.orderBy(sql.ref('created_at'), 'desc')
		.orderBy(sql.ref('id'), 'desc')
		.limit(options.limit + 1)
}
