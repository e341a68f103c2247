import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { removeImportFile } from '../imports/uploads.server.ts'
import { findLeadList } from './find-list.server.ts'
import type { ListKind } from './list-kinds.ts'

export type ListStatus = {
	id: string
	status: number
	progress: number
	requested: number
	found: number
	error: string | null
	finishedAt: string | null
}

/** Status, progress and counts of a lead list (for polling); another account's list is a 404. */
export async function getLeadListStatus(
	context: AccountContext | null,
	listId: unknown,
): Promise<ListStatus> {
	const { list } = await findLeadList(context, listId)
	return {
		id: list.id,
		status: list.status,
		progress: list.progress,
		requested: list.requested,
		found: list.found,
		error: list.error,
		finishedAt: list.finishedAt?.toISOString() ?? null,
	}
}

/**
 * The one rule for deleting a list (a row's Delete, the API's, bulk delete): not while an
 * enrichment run is pending or running on it (it holds credits and writes the rows) nor while
 * an EmailBison upload reads it. Refused with the reason, as a FormError.
 */
export async function refuseDeleteWhileInUse(kind: ListKind, listId: string) {
	const column = kind === 'leads' ? 'list_id' : 'company_list_id'
	const run = await db
		.selectFrom('enrichment_runs')
		.select('id')
		.where(column, '=', listId)
		.where('status', 'in', [0, 1])
		.executeTakeFirst()
	if (run)
		throw new FormError('An enrichment is running on this list; cancel it or wait for it to end.')
	if (kind === 'leads') {
		const upload = await db
			.selectFrom('emailbison_upload')
			.select('id')
			.where('list_id', '=', listId)
			.where('status', 'in', [0, 1])
			.executeTakeFirst()
		if (upload)
			throw new FormError('This list is being uploaded to EmailBison; wait for the upload to end.')
	}
}

/**
 * Deletes a lead list with its leads (and, for an upload, its import report and file). A
 * running import is cancelled first: its worker stops at its next batch.
 */
export async function deleteLeadList(context: AccountContext | null, listId: unknown) {
	const { account, list } = await findLeadList(context, listId)
	await refuseDeleteWhileInUse('leads', list.id)
	const upload = await db
		.selectFrom('csv_imports')
		.select('file_path')
		.where('list_id', '=', list.id)
		.executeTakeFirst()
	await db
		.updateTable('processing_list')
		.set({ status: 3, error: 'Cancelled', finished_at: sql`now()`, updated_at: sql`now()` })
		.where('id', '=', list.id)
		.where('status', 'in', [0, 1])
		.execute()
	await db
		.deleteFrom('processing_list')
		.where('id', '=', list.id)
		.where('user_id', '=', account.accountId)
		.execute()
	if (upload) await removeImportFile(upload.file_path)
	return list
}
