import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'

export type WorkspaceContents = {
	leadLists: number
	companyLists: number
	domains: number
	inboxOrders: number
	inboxes: number
}

/** What each of these workspaces of the account holds (the rows that keep it from deletion). */
export async function countWorkspaceContents(
	accountId: string,
	workspaceIds: readonly string[],
): Promise<Map<string, WorkspaceContents>> {
	const result = new Map<string, WorkspaceContents>()
	if (workspaceIds.length === 0) return result
	const rows = await db
		.selectFrom('workspaces as w')
		.where('w.user_id', '=', accountId)
		.where('w.id', 'in', workspaceIds)
		.select((eb) => [
			'w.id',
			eb
				.selectFrom('processing_list as t')
				.whereRef('t.workspace_id', '=', 'w.id')
				.where('t.user_id', '=', accountId)
				.select(sql<number>`count(*)::int`.as('n'))
				.as('leadLists'),
			eb
				.selectFrom('company_scraping_list as t')
				.whereRef('t.workspace_id', '=', 'w.id')
				.where('t.user_id', '=', accountId)
				.select(sql<number>`count(*)::int`.as('n'))
				.as('companyLists'),
			eb
				.selectFrom('domains as t')
				.whereRef('t.workspace_id', '=', 'w.id')
				.where('t.user_id', '=', accountId)
				.select(sql<number>`count(*)::int`.as('n'))
				.as('domains'),
			eb
				.selectFrom('inbox_orders as t')
				.whereRef('t.workspace_id', '=', 'w.id')
				.where('t.user_id', '=', accountId)
				.select(sql<number>`count(*)::int`.as('n'))
				.as('inboxOrders'),
			eb
				.selectFrom('inboxes as t')
				.whereRef('t.workspace_id', '=', 'w.id')
				.where('t.user_id', '=', accountId)
				.select(sql<number>`count(*)::int`.as('n'))
				.as('inboxes'),
		])
		.execute()
	for (const row of rows) {
		result.set(row.id, {
			leadLists: row.leadLists ?? 0,
			companyLists: row.companyLists ?? 0,
			domains: row.domains ?? 0,
			inboxOrders: row.inboxOrders ?? 0,
			inboxes: row.inboxes ?? 0,
		})
	}
	return result
}

const NOUNS: [keyof WorkspaceContents, string, string][] = [
	['leadLists', 'lead list', 'lead lists'],
	['companyLists', 'company list', 'company lists'],
	['domains', 'domain', 'domains'],
	['inboxOrders', 'inbox order', 'inbox orders'],
	['inboxes', 'inbox', 'inboxes'],
]

/** '2 lead lists, 1 domain and 3 inbox orders'; '' when empty. */
export function describeContents(contents: WorkspaceContents) {
	const parts = NOUNS.filter(([key]) => contents[key] > 0).map(
		([key, one, many]) => `${contents[key]} ${contents[key] === 1 ? one : many}`,
	)
	if (parts.length <= 1) return parts.join('')
	return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`
}

export function isEmpty(contents: WorkspaceContents) {
	return Object.values(contents).every((n) => n === 0)
}
