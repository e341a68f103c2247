import { cleanEmail, type ColumnMapping } from './mapping.ts'

// Rows in PostgreSQL's COPY text format (tab-separated, \N for null, backslash escapes).

/** Standard fields are cut to this many characters so that they fit the list page's indexes. */
export const MAX_FIELD = 500

export const LEAD_COPY_FIELDS = [
	'first_name',
	'last_name',
	'title',
	'company_name',
	'company_domain',
	'linkedin_url',
	'location',
	'phone',
	'email_status',
] as const

const COPY_SPECIAL = /[\\\t\n\r]/

export function copyValue(value: string | null) {
	if (value === null) return '\\N'
	if (!COPY_SPECIAL.test(value)) return value
	return value.replace(/[\\\t\n\r]/g, (c) =>
		c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
	)
}

export type ImportMapping = ColumnMapping & { keepExtra?: boolean }

export type FormattedRow =
	| { ok: true; email: string; body: string; plainDomain: boolean }
	| { ok: false; raw: string; problem: string }

// A company domain already as it is kept (lower case, no scheme, path or "www."): anything
// else is normalised in SQL (normalize_company_domain), on the staging path (decision 0081).
const PLAIN_DOMAIN = /^(?!www\d*\.)[a-z0-9-]+(?:\.[a-z0-9-]+)*$/

/**
 * A CSV record as the lead it becomes: `body` holds email, the standard fields and data
 * (tab-separated, COPY-escaped, no line end); an address that is missing or not valid is
 * a problem instead. The address is lower-cased here (the importer needs its lower case for
 * the duplicate check anyway); `plainDomain` is false when the company domain still needs
 * normalising.
 */
export function formatRow(record: string[], mapping: ImportMapping): FormattedRow {
	const raw = (record[mapping.email!] ?? '').trim()
	const email = cleanEmail(raw)?.toLowerCase()
	if (!email) {
		return {
			ok: false,
			raw: raw.slice(0, MAX_FIELD),
			problem: raw ? 'Not a valid email address' : 'No email address',
		}
	}
	let body = copyValue(email)
	let plainDomain = true
	for (const field of LEAD_COPY_FIELDS) {
		const column = mapping[field]
		body += '\t'
		if (column === undefined) {
			body += '\\N'
			continue
		}
		const value = (record[column] ?? '').trim()
		if (field === 'company_domain' && value) plainDomain = PLAIN_DOMAIN.test(value)
		body += value ? copyValue(value.length > MAX_FIELD ? value.slice(0, MAX_FIELD) : value) : '\\N'
	}
	let data: Record<string, string> | null = null
	if (mapping.keepExtra) {
		for (const [column, name] of mapping.extra) {
			const value = (record[column] ?? '').trim()
			if (value) (data ??= {})[name] = value
		}
	}
	body += data ? `\t${copyValue(JSON.stringify(data))}` : '\t{}'
	return { ok: true, email, body, plainDomain }
}

/** A staging-table line for an invalid row. */
export function invalidLine(line: number, raw: string, problem: string) {
	return `${line}\t${copyValue(raw || null)}\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t${problem}\n`
}

/** A growable byte buffer of COPY lines (bytes, so a batch weighs what its text does). */
export class CopyBuffer {
	buffer: Buffer
	length = 0
	rows = 0

	constructor(buffer: Buffer) {
		this.buffer = buffer
	}

	append(text: string) {
		// at most 3 bytes of UTF-8 per UTF-16 unit
		if (this.length + text.length * 3 > this.buffer.length) {
			const grown = Buffer.allocUnsafeSlow(
				Math.max(this.buffer.length * 2, this.length + text.length * 3),
			)
			this.buffer.copy(grown, 0, 0, this.length)
			this.buffer = grown
		}
		this.length += this.buffer.write(text, this.length, 'utf8')
		this.rows++
	}

	get bytes() {
		return this.buffer.subarray(0, this.length)
	}
}
