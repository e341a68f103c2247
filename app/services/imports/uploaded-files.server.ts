import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'

export type UploadedFile = {
	id: string
	name: string
	fileName: string | null
	fileSize: number | null
	rows: number
	imported: number
	invalid: number
	duplicates: number
	status: number
	progress: number
	error: string | null
	createdAt: string
}

/**
 * The uploaded lists of the current workspace (and, for those who see every workspace,
 * the ones in none), newest first.
 */
export async function listUploadedFiles(
	context: AccountContext | null,
	workspaceId: string | null,
): Promise<UploadedFile[]> {
	const account = actingAccount(context)
	if (workspaceId === null && !account.accessAllWorkspaces) return []
	const rows = await db
		.selectFrom('processing_list as l')
		.leftJoin('csv_imports as i', 'i.list_id', 'l.id')
		.select([
			'l.id',
			'l.name',
			'l.file_name',
			'l.file_size',
			'l.requested',
			'l.found',
			'l.status',
			'l.progress',
			'l.error',
			'l.created_at',
			'i.invalid',
			'i.duplicates',
		])
		.where('l.user_id', '=', account.accountId)
		.where('l.source_type', '=', 'upload')
		.where(
			account.accessAllWorkspaces
				? sql<boolean>`(l.workspace_id is not distinct from ${workspaceId} or l.workspace_id is null)`
				: sql<boolean>`l.workspace_id is not distinct from ${workspaceId}`,
		)
		.orderBy('l.created_at', 'desc')
		.limit(200)
		.execute()
	return rows.map((r) => ({
		id: r.id,
		name: r.name,
		fileName: r.file_name,
		fileSize: r.file_size,
		rows: r.requested,
		imported: r.found,
		invalid: r.invalid ?? 0,
		duplicates: r.duplicates ?? 0,
		status: r.status,
		progress: r.progress,
		error: r.error,
		createdAt: r.created_at.toISOString(),
	}))
}
