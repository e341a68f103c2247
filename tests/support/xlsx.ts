import { crc32, deflateRawSync } from 'node:zlib'

// Small .xlsx workbooks for the tests, written by hand (a zip of the few XML parts a reader
// needs), and zips that lie about their sizes.

type Cell = string | number | null
export type Entry = {
	name: string
	data: Buffer
	/** what the zip says the entry inflates to (a lie, for a zip bomb), else the truth */
	declaredSize?: number
	stored?: boolean
}

/** A zip of `entries` (deflated unless stored). */
export function zipOf(entries: Entry[]) {
	const locals: Buffer[] = []
	const centrals: Buffer[] = []
	let offset = 0
	for (const entry of entries) {
		const name = Buffer.from(entry.name)
		const body = entry.stored ? entry.data : deflateRawSync(entry.data)
		const size = entry.declaredSize ?? entry.data.length
		const crc = crc32(entry.data)
		const local = Buffer.alloc(30)
		local.writeUInt32LE(0x04034b50, 0)
		local.writeUInt16LE(20, 4)
		local.writeUInt16LE(0x0800, 6) // UTF-8 names
		local.writeUInt16LE(entry.stored ? 0 : 8, 8)
		local.writeUInt32LE(crc, 14)
		local.writeUInt32LE(body.length, 18)
		local.writeUInt32LE(size, 22)
		local.writeUInt16LE(name.length, 26)
		locals.push(local, name, body)
		const central = Buffer.alloc(46)
		central.writeUInt32LE(0x02014b50, 0)
		central.writeUInt16LE(20, 4)
		central.writeUInt16LE(20, 6)
		central.writeUInt16LE(0x0800, 8)
		central.writeUInt16LE(entry.stored ? 0 : 8, 10)
		central.writeUInt32LE(crc, 16)
		central.writeUInt32LE(body.length, 20)
		central.writeUInt32LE(size, 24)
		central.writeUInt16LE(name.length, 28)
		central.writeUInt32LE(offset, 42)
		centrals.push(central, name)
		offset += local.length + name.length + body.length
	}
	const directory = Buffer.concat(centrals)
	const end = Buffer.alloc(22)
	end.writeUInt32LE(0x06054b50, 0)
	end.writeUInt16LE(entries.length, 8)
	end.writeUInt16LE(entries.length, 10)
	end.writeUInt32LE(directory.length, 12)
	end.writeUInt32LE(offset, 16)
	return Buffer.concat([...locals, directory, end])
}

const escape = (value: string) =>
	value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

function letters(index: number) {
	let n = index + 1
	let out = ''
	while (n > 0) {
		out = String.fromCharCode(65 + ((n - 1) % 26)) + out
		n = Math.floor((n - 1) / 26)
	}
	return out
}

/**
 * An .xlsx of sheets of rows (by their row number: a gap is empty rows): text cells as shared
 * strings (every other one as an inline string), numbers as numbers.
 */
export function xlsxOf(sheets: { name: string; rows: Record<number, Cell[]> | Cell[][] }[]) {
	const shared: string[] = []
	const sheetXml = sheets.map(({ rows }) => {
		const entries = Array.isArray(rows)
			? rows.map((cells, i) => [i + 1, cells] as const)
			: Object.entries(rows).map(([n, cells]) => [Number(n), cells] as const)
		const body = entries
			.map(([number, cells]) => {
				const xml = cells
					.map((cell, column) => {
						const ref = `${letters(column)}${number}`
						if (cell === null) return ''
						if (typeof cell === 'number') return `<c r="${ref}"><v>${cell}</v></c>`
						if (column % 2 === 1) {
							return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escape(cell)}</t></is></c>`
						}
						shared.push(cell)
						return `<c r="${ref}" t="s"><v>${shared.length - 1}</v></c>`
					})
					.join('')
				return `<row r="${number}">${xml}</row>`
			})
			.join('')
		return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${body}</sheetData></worksheet>`
	})
	const workbook = `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${sheets
		.map((s, i) => `<sheet name="${escape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
		.join('')}</sheets></workbook>`
	const rels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
		.map(
			(_, i) =>
				`<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
		)
		.join('')}</Relationships>`
	const strings = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${shared.length}" uniqueCount="${shared.length}">${shared
		.map((s) => `<si><t xml:space="preserve">${escape(s)}</t></si>`)
		.join('')}</sst>`
	return zipOf([
		// the worksheets first and the shared strings last, as some writers order them
		...sheetXml.map((xml, i) => ({
			name: `xl/worksheets/sheet${i + 1}.xml`,
			data: Buffer.from(xml),
		})),
		{ name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
		{ name: 'xl/workbook.xml', data: Buffer.from(workbook) },
		{ name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(rels) },
		{ name: 'xl/sharedStrings.xml', data: Buffer.from(strings) },
	])
}
