import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { FileNotFound, StorageUnavailable } from '../../storage/file-storage.server.ts'
import { FormError, statusOf } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import {
	columnLetter,
	LEAD_FIELDS,
	LEAD_FIELD_KEYS,
	type ColumnMapping,
	type MappingInput,
} from './mapping.ts'
import { saveMapping } from './saved-mappings.server.ts'
import {
	claimPendingUpload,
	readPendingUpload,
	removeImportFile,
	storageProblem,
	type PendingUpload,
} from './uploads.server.ts'

/**
 * The mapping step's submit: creates the list (processing_list, source_type upload, status 0)
 * with its csv_imports row and queues the csv-import job in the same transaction. The list
 * goes into the chosen workspace (one the user may use), else the current one.
 */
export async function startCsvImport(
	context: AccountContext | null,
	input: MappingInput,
	currentWorkspaceId: string | null,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	let upload: PendingUpload
	try {
		upload = await readPendingUpload(account.accountId, input.uploadId)
	} catch (error) {
		if (statusOf(error) === 404) {
			throw new FormError('This upload is no longer available. Upload the file again.')
		}
		throw error
	}
	const workspaceId = chooseWorkspace(account, input.workspaceId ?? currentWorkspaceId)
	const columns = Math.max(0, ...upload.head.map((r) => r.length))
	for (const field of LEAD_FIELDS) {
		const index = input[field.key]
		if (index !== undefined && index >= columns) {
			throw new FormError(`The file has no column ${columnLetter(index)}`, field.key)
		}
	}
	const mapping = buildMapping(input, upload)
	const listId = randomUUID()
	const rowsTotal = Math.max(0, upload.records - (input.hasHeader ? 1 : 0))
	let filePath: string
	try {
		filePath = await claimPendingUpload(upload, listId)
	} catch (error) {
		// gone between the check and the move (expired, or confirmed in another tab)
		if (error instanceof FileNotFound) {
			throw new FormError('This upload is no longer available. Upload the file again.')
		}
		if (error instanceof StorageUnavailable) throw new FormError(storageProblem(error).message)
		throw error
	}
	try {
		await inTransaction(executor, async (trx) => {
			await trx
				.insertInto('processing_list')
				.values({
					id: listId,
					user_id: account.accountId,
					workspace_id: workspaceId,
					name: input.name,
					source_type: 'upload',
					status: 0,
					requested: rowsTotal,
					file_name: upload.fileName,
					file_size: upload.size,
				})
				.execute()
			await trx
				.insertInto('csv_imports')
				.values({
					list_id: listId,
					user_id: account.accountId,
					file_path: filePath,
					delimiter: upload.delimiter,
					has_header: input.hasHeader,
					mapping: JSON.stringify(mapping),
					rows_total: rowsTotal,
					bytes_total: upload.size,
				})
				.execute()
			const headers = upload.head[0]
			if (input.hasHeader && headers) await saveMapping(trx, account.accountId, headers, input)
			await enqueue('csv-import', { listId }, { db: trx, singletonKey: listId })
		})
	} catch (error) {
		await removeImportFile(filePath)
		throw error
	}
	return { listId }
}

function chooseWorkspace(
	account: ReturnType<typeof actingAccount>,
	wanted: string | undefined | null,
) {
	if (wanted) {
		if (!account.workspaces.some((w) => w.id === wanted)) {
			throw new FormError('Choose one of your workspaces', 'workspaceId')
		}
		return wanted
	}
	if (account.workspaces.length > 0) return account.workspaces[0]!.id
	if (!account.accessAllWorkspaces) throw new FormError('Choose a workspace', 'workspaceId')
	return null
}

function buildMapping(input: MappingInput, upload: PendingUpload) {
	const mapping: ColumnMapping & { keepExtra: boolean } = { extra: [], keepExtra: input.keepExtra }
	const used = new Set<number>()
	for (const field of LEAD_FIELD_KEYS) {
		const index = input[field]
		if (index === undefined) continue
		mapping[field] = index
		used.add(index)
	}
	if (input.keepExtra) {
		const header = input.hasHeader ? (upload.head[0] ?? []) : []
		const columns = Math.max(0, ...upload.head.map((r) => r.length))
		const names = new Set<string>()
		for (let column = 0; column < columns; column++) {
			if (used.has(column)) continue
			let name = (header[column] ?? '').trim() || `Column ${columnLetter(column)}`
			while (names.has(name)) name = `${name} (${columnLetter(column)})`
			names.add(name)
			mapping.extra.push([column, name.slice(0, 100)])
		}
	}
	return mapping
}
