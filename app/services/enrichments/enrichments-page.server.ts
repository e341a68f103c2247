import { jsonArrayFrom } from 'kysely/helpers/postgres'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import {
	ENRICHMENT_COLUMNS,
	leadColumns,
	PREVIEW_LISTS,
	previewLists,
	toChain,
	toEnrichment,
} from './enrichments.server.ts'

/**
 * What /enrichments shows, read in ONE statement (decision 0074): the account's enrichments and
 * chains, and the newest lead and company lists to preview on, each a JSON array of its rows.
 * The columns a prompt may name and the enrichment or chain being edited (?edit=, ?editChain=)
 * are found among those rows, not read again. An id to edit that is not the account's is 404.
 */
export async function readEnrichmentsPage(
	context: AccountContext | null,
	{ editId, editChainId }: { editId: string | null; editChainId: string | null },
) {
	const account = actingAccount(context)
	// checked first, as the reads one by one did: no statement for an id that names nothing
	if (editId !== null && !isUuid(editId)) notFound('This enrichment')
	if (editChainId !== null && !isUuid(editChainId)) notFound('This chain')
	const row = await db
		.selectNoFrom((eb) => [
			jsonArrayFrom(
				eb
					.selectFrom('ai_enrichments')
					.select(ENRICHMENT_COLUMNS)
					.where('user_id', '=', account.accountId)
					.orderBy('created_at'),
			).as('enrichments'),
			jsonArrayFrom(
				eb
					.selectFrom('enrichment_chain')
					.select(['id', 'name', 'steps', 'catch_all_policy', 'created_at'])
					.where('user_id', '=', account.accountId)
					.orderBy('created_at'),
			).as('chains'),
			jsonArrayFrom(
				eb
					.selectFrom('processing_list')
					.select(['id', 'name', 'workspace_id', 'found'])
					.where('user_id', '=', account.accountId)
					.orderBy('created_at', 'desc')
					.limit(PREVIEW_LISTS),
			).as('leadLists'),
			jsonArrayFrom(
				eb
					.selectFrom('company_scraping_list')
					.select(['id', 'name', 'workspace_id', 'found'])
					.where('user_id', '=', account.accountId)
					.orderBy('created_at', 'desc')
					.limit(PREVIEW_LISTS),
			).as('companyLists'),
		])
		.executeTakeFirstOrThrow()
	// timestamps come back as JSON text
	const enrichments = row.enrichments.map((e) =>
		toEnrichment({ ...e, created_at: new Date(e.created_at) }),
	)
	const chains = row.chains.map((c) => toChain({ ...c, created_at: new Date(c.created_at) }))
	const editing = editId === null ? null : enrichments.find((e) => e.id === editId)
	if (editing === undefined) notFound('This enrichment')
	const editingChain = editChainId === null ? null : chains.find((c) => c.id === editChainId)
	if (editingChain === undefined) notFound('This chain')
	return {
		enrichments,
		chains,
		columns: [...leadColumns(enrichments)],
		lists: previewLists(account, row.leadLists, row.companyLists),
		editing,
		editingChain,
	}
}
