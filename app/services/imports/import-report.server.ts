import { db } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { notFound } from '../../utils/http-errors.server.ts'
import { countSuppressed } from '../do-not-contact/match.server.ts'
import { copyCsv, csvFileName, type CsvDownload } from '../lists/export.server.ts'
import { findLeadList } from '../lists/find-list.server.ts'

export const REPORT_PAGE_SIZE = 100

export type ImportSummary = {
	rowsTotal: number
	rowsDone: number
	imported: number
	invalid: number
	duplicates: number
	hasHeader: boolean
}

/** The import's counts of a list already found (findLeadList) for the signed-in account. */
export async function summaryOf(listId: string): Promise<ImportSummary | null> {
	const row = await db
		.selectFrom('csv_imports')
		.select(['rows_total', 'rows_done', 'imported', 'invalid', 'duplicates', 'has_header'])
		.where('list_id', '=', listId)
		.executeTakeFirst()
	return row
		? {
				rowsTotal: row.rows_total,
				rowsDone: row.rows_done,
				imported: row.imported,
				invalid: row.invalid,
				duplicates: row.duplicates,
				hasHeader: row.has_header,
			}
		: null
}

/** The import's counts (null for lists that were not uploaded). */
export async function importSummary(context: AccountContext | null, listId: unknown) {
	const { list } = await findLeadList(context, listId)
	return summaryOf(list.id)
}

/**
 * The rows an import turned away (invalid or duplicate), by line, a page at a time after
 * `afterLine`. Another account's list, or one that was not uploaded, is a 404.
 */
export async function importReport(
	context: AccountContext | null,
	listId: unknown,
	afterLine: number,
) {
	const { list } = await findLeadList(context, listId)
	const [summary, suppressed] = await Promise.all([summaryOf(list.id), countSuppressed(list.id)])
	if (!summary) notFound('This import report')
	const rows = await db
		.selectFrom('csv_import_errors')
		.select(['line', 'kind', 'email', 'message'])
		.where('list_id', '=', list.id)
		.where('line', '>', afterLine)
		.orderBy('line')
		.limit(REPORT_PAGE_SIZE + 1)
		.execute()
	return {
		list,
		// imported leads the do-not-contact list matches, counted now (suppression is computed at use)
		summary: { ...summary, suppressed },
		errors: rows.slice(0, REPORT_PAGE_SIZE),
		nextAfterLine: rows.length > REPORT_PAGE_SIZE ? rows[REPORT_PAGE_SIZE - 1]!.line : null,
	}
}

/** Every turned-away row as CSV (line, kind, email, reason), streamed. */
export async function streamImportErrorsCsv(
	context: AccountContext | null,
	listId: unknown,
): Promise<CsvDownload> {
	const { list } = await findLeadList(context, listId)
	if (!(await summaryOf(list.id))) notFound('This import report')
	return {
		fileName: csvFileName(`${list.name}-import-errors`),
		stream: copyCsv(
			[
				{ header: 'line', expression: 'line::text' },
				{ header: 'problem', expression: 'kind' },
				{ header: 'email', expression: 'email' },
				{ header: 'reason', expression: 'message' },
			],
			'csv_import_errors',
			list.id,
			'line',
		),
	}
}
