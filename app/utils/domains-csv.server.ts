import { parse } from 'csv-parse/sync'
import { FormError } from './http-errors.server.ts'

/** Headers that name the domains column, the preferred first ("Name,Domain" takes Domain). */
const DOMAIN_HEADERS = [
	'domain',
	'domains',
	'domain name',
	'website',
	'company domain',
	'company website',
	'url',
]

/**
 * The domains column of an uploaded CSV (a column named as above, else the first), one line per
 * line of the file: errors name the line people see in their spreadsheet (the header is line 1;
 * blank lines count; a quoted cell over several lines keeps the next record on its own line).
 */
export function domainsFromCsv(csv: string): string {
	let records: { record: string[]; info: { lines: number } }[]
	try {
		records = parse(csv, {
			bom: true,
			relax_column_count: true,
			skip_empty_lines: true,
			info: true,
		}) as unknown as typeof records
	} catch {
		throw new FormError('This file could not be read as CSV', 'file')
	}
	if (records.length === 0) throw new FormError('This file is empty', 'file')
	const header = records[0]!.record.map((h) => h.trim().toLowerCase())
	const named = DOMAIN_HEADERS.map((name) => header.indexOf(name)).find((index) => index >= 0) ?? -1
	const column = named >= 0 ? named : 0
	const lines: string[] = []
	// info.lines is the file line a record ends on
	for (const { record, info } of records.slice(named >= 0 ? 1 : 0)) {
		lines[info.lines - 1] = (record[column] ?? '').trim()
	}
	return Array.from(lines, (cell) => cell ?? '').join('\n')
}
