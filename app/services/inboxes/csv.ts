import { csvSafe } from '../../utils/csv-safe.ts'

/** Small RFC 4180 CSV helpers for inbox credentials (at most a few thousand rows). */

export function parseCsv(text: string): string[][] {
	const rows: string[][] = []
	let row: string[] = []
	let cell = ''
	let quoted = false
	const src = text.replace(/^\uFEFF/, '')
	for (let i = 0; i < src.length; i++) {
		const ch = src[i]!
		if (quoted) {
			if (ch === '"' && src[i + 1] === '"') {
				cell += '"'
				i++
			} else if (ch === '"') quoted = false
			else cell += ch
		} else if (ch === '"' && cell === '') quoted = true
		else if (ch === ',') {
			row.push(cell)
			cell = ''
		} else if (ch === '\n' || ch === '\r') {
			if (ch === '\r' && src[i + 1] === '\n') i++
			row.push(cell)
			rows.push(row)
			row = []
			cell = ''
		} else cell += ch
	}
	if (cell !== '' || row.length) {
		row.push(cell)
		rows.push(row)
	}
	return rows.filter((r) => r.some((c) => c.trim() !== ''))
}

/** A cell a spreadsheet would run as a formula gets a leading apostrophe. */
export function safeCell(value: string | number | null | undefined) {
	let text = value === null || value === undefined ? '' : String(value)
	text = csvSafe(text)
	return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export function toCsv(rows: (string | number | null | undefined)[][]) {
	return rows.map((row) => row.map(safeCell).join(',')).join('\r\n') + '\r\n'
}
