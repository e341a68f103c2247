import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { removeImportFile } from '../imports/uploads.server.ts'
import { findLeadList } from './find-list.server.ts'
import { lockListForDelete } from './list-lock.server.ts'

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
 * Deletes a lead list with its leads (and, for an upload, its import report and file). A
 * running import is cancelled first: its worker stops at its next batch.
 */
export async function deleteLeadList(
	context: AccountContext | null,
	listId: unknown,
	executor: Kysely<DB> = db,
) {
	const { account, list } = await findLeadList(context, listId)
	const upload = await inTransaction(executor, async (trx) => {
		if (!(await lockListForDelete(trx, 'leads', list.id))) return null
		const upload = await trx
			.selectFrom('csv_imports')
			.select('file_path')
			.where('list_id', '=', list.id)
			.executeTakeFirst()
		await trx
			.updateTable('processing_list')
			.set({ status: 3, error: 'Cancelled', finished_at: sql`now()`, updated_at: sql`now()` })
			.where('id', '=', list.id)
			.where('status', 'in', [0, 1])
			.execute()
		await trx
			.deleteFrom('processing_list')
			.where('id', '=', list.id)
			.where('user_id', '=', account.accountId)
			.execute()
		return upload
	})
	if (upload) await removeImportFile(upload.file_path)
	return list
}
