import type { AccountContext } from '../../context.server.ts'
import { countSuppressed } from '../do-not-contact/match.server.ts'
import { summaryOf, type ImportSummary } from '../imports/import-report.server.ts'
import { listCompaniesPage } from './companies-page.server.ts'
import { findLeadList } from './find-list.server.ts'
import { leadsPageOf } from './leads-page.server.ts'
import type { ListKind } from './list-kinds.ts'
import type { ListQuery } from './list-query.ts'

// The loader of a list's page, for either kind: the list, one page of its rows in the URL's
// order and search, and (a CSV upload) its import's counts. The page is
// app/components/lists/list-page.tsx; the routes (list.tsx, company-list.tsx) only name the kind.

/** A row of the table: its fields by column key, and its own data. */
export type ListPageRow = { id: string; data: Record<string, unknown> }

export type ListPageData = {
	kind: ListKind
	list: {
		id: string
		name: string
		sourceType: string
		status: number
		progress: number
		requested: number
		found: number
		error: string | null
		fileName: string | null
		createdAt: string
	}
	rows: ListPageRow[]
	query: ListQuery
	dataKeys: string[]
	/** the whole list's size (kept on the list row: no count over the list); null for a search */
	total: number | null
	/** how many rows a search matches (a lead list's search counts them; else null) */
	matching: { count: number; more: boolean } | null
	firstIndex: number
	previous: { page: number; before?: string } | null
	next: { page: number; after: string } | null
	summary: ImportSummary | null
	/** leads of a finished lead list the do-not-contact list matches (null while it runs) */
	suppressed: number | null
}

/**
 * One page of a list of the signed-in account; another account's list, or one in a workspace
 * the user may not use, is a 404.
 */
export async function loadListPage(
	kind: ListKind,
	context: AccountContext | null,
	listId: unknown,
	request: Request,
): Promise<ListPageData> {
	const search = new URL(request.url).searchParams
	if (kind === 'companies') {
		const { list, companies, ...page } = await listCompaniesPage(context, listId, search)
		return {
			...page,
			kind,
			rows: companies,
			matching: null,
			summary: null,
			suppressed: null,
			list: {
				id: list.id,
				name: list.name,
				sourceType: list.source_type,
				status: list.status,
				progress: list.progress,
				requested: list.requested,
				found: list.found,
				error: list.error,
				fileName: null,
				createdAt: list.created_at.toISOString(),
			},
		}
	}
	const { list } = await findLeadList(context, listId)
	// the page (with a search's count, for "Enrich these leads") and the import's counts at
	// once: one round trip after the list's
	const [{ list: _, leads, ...page }, summary, suppressed] = await Promise.all([
		leadsPageOf(list, search),
		list.sourceType === 'upload' ? summaryOf(list.id) : null,
		// counted once the list is done: a running one refreshes every 2 s
		list.status === 0 || list.status === 1 ? null : countSuppressed(list.id),
	])
	return {
		...page,
		kind,
		// only what the table shows: an imported email status only where we never checked
		rows: leads.map(({ email_status, ...lead }) => ({
			...lead,
			imported_status: lead.verify_status ? null : email_status,
		})),
		summary,
		suppressed,
		list: {
			id: list.id,
			name: list.name,
			sourceType: list.sourceType,
			status: list.status,
			progress: list.progress,
			requested: list.requested,
			found: list.found,
			error: list.error,
			fileName: list.fileName,
			createdAt: list.createdAt.toISOString(),
		},
	}
}
