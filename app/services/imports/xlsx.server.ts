import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Transform, type Readable, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { StringDecoder } from 'node:string_decoder'
import sax from 'sax'
import yauzl from 'yauzl'
import { UploadRejected } from './csv-scan.server.ts'
import { formatBytes, MAX_IMPORT_ROWS } from './mapping.ts'

// An uploaded .xlsx becomes the CSV the import already reads (decision 0081): the workbook is
// kept in a temporary file (a zip is read from its end), its first sheet is unzipped (yauzl)
// and parsed (sax) as a stream, and each row comes out as one CSV line, empty rows as empty
// lines, so that the import's line numbers are the sheet's row numbers. The CSV then goes
// through the same checks, limits, mapping step and import job as an uploaded CSV.

export const XLSX_LIMITS = {
	/** files in the zip */
	entries: 10_000,
	sheets: 100,
	columns: 1_000,
	/** the first sheet's XML, unpacked */
	sheetBytes: 2 * 1024 ** 3,
	/** the shared strings (held in memory while the sheet is read), unpacked */
	sharedStringsBytes: 128 * 1024 ** 2,
	/** workbook.xml and its relationships, unpacked */
	smallPartBytes: 8 * 1024 ** 2,
	/** unpacked / packed: XML of real sheets packs 5 to 30 times; a bomb about 1,000 times */
	ratio: 200,
	/** the ratio is only checked above this unpacked size */
	ratioFrom: 16 * 1024 ** 2,
	/** characters in one cell (Excel's own limit is 32,767) */
	cellChars: 32_767,
}

const unreadable = (why?: string) =>
	new UploadRejected(
		`This file could not be read as an .xlsx workbook${why ? ` (${why})` : ''}. Save it again from your spreadsheet app, or as “CSV UTF-8”.`,
	)

export function isXlsxName(fileName: string) {
	return /\.xlsx$/i.test(fileName.trim())
}

/**
 * The CSV text of an uploaded workbook's first sheet. The upload is read to a temporary file
 * first (at most `maxBytes`); anything wrong with the workbook is an UploadRejected, before the
 * CSV starts or from the stream.
 */
export async function xlsxAsCsv(input: Readable, maxBytes: number): Promise<Readable> {
	const file = path.join(tmpdir(), `leadsmith-xlsx-${randomUUID()}.xlsx`)
	let zip: yauzl.ZipFile | null = null
	const cleanup = () => {
		zip?.close()
		zip = null
		rm(file, { force: true }).catch(() => {})
	}
	try {
		let bytes = 0
		const counter = new Transform({
			transform(chunk: Buffer, _encoding, callback) {
				bytes += chunk.length
				if (bytes > maxBytes) {
					callback(
						new UploadRejected(
							`This file is larger than ${formatBytes(maxBytes)}. Split it and upload the parts.`,
							413,
						),
					)
				} else callback(null, chunk)
			},
		})
		await pipeline(input, counter, createWriteStream(file))
		if (bytes === 0) throw new UploadRejected('This file is empty.')
		zip = await openZip(file)
		const entries = await readEntries(zip)
		const sheetPath = await firstSheetPath(zip, entries)
		const sheet = entries.get(sheetPath)
		if (!sheet) throw unreadable('its first sheet is missing')
		checkSize(sheet, XLSX_LIMITS.sheetBytes)
		const stringsEntry = entries.get('xl/sharedStrings.xml')
		const strings = stringsEntry ? await sharedStrings(zip, stringsEntry) : []
		const csv = new SheetToCsv(strings)
		const source = await openEntry(zip, sheet)
		const output = source.pipe(csv)
		source.on('error', (error) => output.destroy(asRejection(error)))
		output.on('close', cleanup)
		return output
	} catch (error) {
		cleanup()
		throw asRejection(error)
	}
}

function asRejection(error: unknown) {
	if (error instanceof UploadRejected) return error
	// yauzl's and sax's own words say what is wrong with the zip or the XML
	const message = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 120) : ''
	return unreadable(message || undefined)
}

function openZip(file: string) {
	return new Promise<yauzl.ZipFile>((resolve, reject) => {
		yauzl.open(
			file,
			{ lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false },
			(error, zip) => (error ? reject(error) : resolve(zip)),
		)
	})
}

function readEntries(zip: yauzl.ZipFile) {
	return new Promise<Map<string, yauzl.Entry>>((resolve, reject) => {
		if (zip.entryCount > XLSX_LIMITS.entries) {
			reject(unreadable(`it holds more than ${XLSX_LIMITS.entries.toLocaleString('en')} files`))
			return
		}
		const entries = new Map<string, yauzl.Entry>()
		zip.on('entry', (entry: yauzl.Entry) => {
			entries.set(entry.fileName.replace(/^\/+/, ''), entry)
			zip.readEntry()
		})
		zip.on('end', () => resolve(entries))
		zip.on('error', reject)
		zip.readEntry()
	})
}

function checkSize(entry: yauzl.Entry, limit: number) {
	if (entry.isEncrypted()) {
		throw new UploadRejected('This workbook is protected by a password. Save it without one.')
	}
	if (
		entry.uncompressedSize > limit ||
		(entry.uncompressedSize > XLSX_LIMITS.ratioFrom &&
			entry.uncompressedSize > XLSX_LIMITS.ratio * Math.max(entry.compressedSize, 1))
	) {
		throw new UploadRejected(
			`This workbook is too large when unpacked (${entry.fileName} is ${formatBytes(entry.uncompressedSize)}). Split it, or save it as “CSV UTF-8”.`,
		)
	}
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry) {
	return new Promise<Readable>((resolve, reject) => {
		// validateEntrySizes: a part that inflates past the size it declares is an error at once
		zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream)))
	})
}

/** Runs a small XML part through sax; `handlers` see local names (no namespace prefix). */
async function parsePart(
	zip: yauzl.ZipFile,
	entry: yauzl.Entry,
	limit: number,
	handlers: {
		open?: (name: string, attributes: Record<string, string>) => void
		close?: (name: string) => void
		text?: (text: string) => void
	},
) {
	checkSize(entry, limit)
	const parser = xmlParser(handlers)
	const decoder = new StringDecoder('utf8')
	const stream = await openEntry(zip, entry)
	for await (const chunk of stream as AsyncIterable<Buffer>) parser.write(decoder.write(chunk))
	parser.write(decoder.end())
	parser.close()
}

function localName(name: string) {
	const colon = name.indexOf(':')
	return colon < 0 ? name : name.slice(colon + 1)
}

function xmlParser(handlers: {
	open?: (name: string, attributes: Record<string, string>) => void
	close?: (name: string) => void
	text?: (text: string) => void
}) {
	const parser = sax.parser(true, { trim: false, normalize: false, position: false })
	parser.onerror = (error) => {
		throw error
	}
	parser.onopentag = (node) =>
		handlers.open?.(localName(node.name), node.attributes as Record<string, string>)
	parser.onclosetag = (name) => handlers.close?.(localName(name))
	if (handlers.text) {
		parser.ontext = handlers.text
		parser.oncdata = handlers.text
	}
	return parser
}

/** The first sheet's part, from the workbook and its relationships. */
async function firstSheetPath(zip: yauzl.ZipFile, entries: Map<string, yauzl.Entry>) {
	const workbook = entries.get('xl/workbook.xml')
	if (!workbook) throw unreadable('it has no xl/workbook.xml')
	let sheets = 0
	let firstId: string | null = null
	await parsePart(zip, workbook, XLSX_LIMITS.smallPartBytes, {
		open(name, attributes) {
			if (name !== 'sheet') return
			if (++sheets > XLSX_LIMITS.sheets) {
				throw new UploadRejected(
					`This workbook has more than ${XLSX_LIMITS.sheets} sheets. Keep the one to import, or save it as “CSV UTF-8”.`,
				)
			}
			firstId ??=
				Object.entries(attributes).find(([key]) => localName(key) === 'id' && key !== 'id')?.[1] ??
				''
		},
	})
	if (sheets === 0) throw unreadable('it has no sheet')
	const rels = entries.get('xl/_rels/workbook.xml.rels')
	let target: string | null = null
	if (rels && firstId) {
		await parsePart(zip, rels, XLSX_LIMITS.smallPartBytes, {
			open(name, attributes) {
				if (name === 'Relationship' && attributes.Id === firstId) target = attributes.Target ?? null
			},
		})
	}
	if (!target) return 'xl/worksheets/sheet1.xml'
	const resolved = (target as string).startsWith('/')
		? (target as string).slice(1)
		: path.posix.normalize(`xl/${target as string}`)
	return resolved
}

/** The shared strings table: each <si>'s text (its runs joined, phonetic hints left out). */
async function sharedStrings(zip: yauzl.ZipFile, entry: yauzl.Entry) {
	const strings: string[] = []
	let current: string | null = null
	let inText = false
	let phonetic = 0
	await parsePart(zip, entry, XLSX_LIMITS.sharedStringsBytes, {
		open(name) {
			if (name === 'si') current = ''
			else if (name === 't') inText = true
			else if (name === 'rPh') phonetic++
		},
		close(name) {
			if (name === 'si' && current !== null) {
				strings.push(current)
				current = null
			} else if (name === 't') inText = false
			else if (name === 'rPh') phonetic--
		},
		text(text) {
			if (current !== null && inText && phonetic === 0) {
				if (current.length + text.length > XLSX_LIMITS.cellChars) {
					current = (current + text).slice(0, XLSX_LIMITS.cellChars)
				} else current += text
			}
		},
	})
	return strings
}

const MAX_ROW = MAX_IMPORT_ROWS + 1

/** "BC12" -> 54 (from 0), or -1. */
function columnOf(ref: string) {
	let column = 0
	let i = 0
	for (; i < ref.length; i++) {
		const code = ref.charCodeAt(i)
		if (code >= 65 && code <= 90) column = column * 26 + (code - 64)
		else if (code >= 97 && code <= 122) column = column * 26 + (code - 96)
		else break
		if (column > XLSX_LIMITS.columns) break
	}
	return i === 0 ? -1 : column - 1
}

const NEEDS_QUOTES = /[",\r\n]/
const LINE_BREAKS = /\r\n|\r|\n/g

function csvCell(value: string) {
	// one row, one line: a cell's line breaks become spaces, so lines are the sheet's rows
	const flat =
		value.includes('\n') || value.includes('\r') ? value.replace(LINE_BREAKS, ' ') : value
	return NEEDS_QUOTES.test(flat) ? `"${flat.replaceAll('"', '""')}"` : flat
}

/** A worksheet's XML in, CSV lines out (a row per line; empty rows as empty lines). */
class SheetToCsv extends Transform {
	#parser: sax.SAXParser
	#decoder = new StringDecoder('utf8')
	#strings: string[]
	#out: string[] = []
	#row: string[] = []
	#rowNumber = 0
	#lastRow = 0
	#started = false
	#column = 0
	#nextColumn = 0
	#type = ''
	#value: string | null = null
	#inValue = false
	#inInline = false
	#phonetic = 0

	constructor(strings: string[]) {
		super({ readableHighWaterMark: 1 << 16 })
		this.#strings = strings
		this.#parser = xmlParser({
			open: (name, attributes) => this.#open(name, attributes),
			close: (name) => this.#close(name),
			text: (text) => this.#text(text),
		})
	}

	#open(name: string, attributes: Record<string, string>) {
		if (name === 'row') {
			const r = Number(attributes.r)
			this.#rowNumber = Number.isInteger(r) && r > this.#lastRow ? r : this.#lastRow + 1
			if (this.#rowNumber > MAX_ROW) {
				throw new UploadRejected(
					`This sheet has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows; split it and upload the parts.`,
				)
			}
			this.#row = []
			this.#nextColumn = 0
		} else if (name === 'c') {
			const column = attributes.r ? columnOf(attributes.r) : this.#nextColumn
			this.#column = column < 0 ? this.#nextColumn : column
			if (this.#column >= XLSX_LIMITS.columns) {
				throw new UploadRejected(
					`This sheet has more than ${XLSX_LIMITS.columns.toLocaleString('en')} columns. Keep the columns to import, or save it as “CSV UTF-8”.`,
				)
			}
			this.#type = attributes.t ?? 'n'
			this.#value = null
		} else if (name === 'v') {
			this.#inValue = true
			this.#value = ''
		} else if (name === 'is') {
			this.#inInline = true
			this.#value = ''
		} else if (name === 'rPh') this.#phonetic++
	}

	#text(text: string) {
		if (!(this.#inValue || (this.#inInline && this.#phonetic === 0)) || this.#value === null) return
		if (this.#value.length + text.length > XLSX_LIMITS.cellChars) {
			throw new UploadRejected(
				`A cell of row ${this.#rowNumber} has more than ${XLSX_LIMITS.cellChars.toLocaleString('en')} characters.`,
			)
		}
		this.#value += text
	}

	#close(name: string) {
		if (name === 'v') this.#inValue = false
		else if (name === 'is') this.#inInline = false
		else if (name === 'rPh') this.#phonetic--
		else if (name === 'c') {
			const raw = this.#value ?? ''
			let value = raw
			if (this.#type === 's') value = this.#strings[Number(raw)] ?? ''
			else if (this.#type === 'b') value = raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw
			this.#row[this.#column] = value
			this.#nextColumn = this.#column + 1
		} else if (name === 'row') this.#endRow()
	}

	#endRow() {
		let width = this.#row.length
		while (width > 0 && !this.#row[width - 1]?.trim()) width--
		if (!this.#started && width === 0) return
		if (!this.#started) {
			// the file starts at the first row with something in it
			this.#started = true
			this.#lastRow = this.#rowNumber - 1
		}
		for (let gap = this.#lastRow + 1; gap < this.#rowNumber; gap++) this.#out.push('\n')
		let line = ''
		for (let i = 0; i < width; i++) line += (i ? ',' : '') + csvCell(this.#row[i] ?? '')
		this.#out.push(`${line}\n`)
		this.#lastRow = this.#rowNumber
	}

	#flush() {
		if (this.#out.length) {
			this.push(this.#out.join(''))
			this.#out = []
		}
	}

	override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
		try {
			this.#parser.write(this.#decoder.write(chunk))
			this.#flush()
			callback()
		} catch (error) {
			callback(asRejection(error))
		}
	}

	override _flush(callback: TransformCallback) {
		try {
			this.#parser.write(this.#decoder.end())
			this.#parser.close()
			this.#flush()
			callback()
		} catch (error) {
			callback(asRejection(error))
		}
	}
}
