import { Transform, type TransformCallback } from 'node:stream'

/** A file the person can fix; `message` goes next to the file field. */
export class UploadRejected extends Error {
	status: number
	constructor(message: string, status = 400) {
		super(message)
		this.name = 'UploadRejected'
		this.status = status
	}
}

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const TAB = 0x09

export type ScanResult = {
	bytes: number
	/** lines that hold something: the header (if any) and the data rows */
	records: number
	/** the delimiter the file uses: , ; tab or | */
	delimiter: string
}

/**
 * Passes an uploaded CSV through while checking it in the same pass: UTF-8 text (not a
 * spreadsheet, not UTF-16, no NUL bytes), balanced quotes, nothing after a closing quote,
 * at most `maxBytes` and `maxRecords`. It counts the records the importer will see
 * (quote-aware, so multi-line cells count once), fast enough for a 200 MB file, and
 * throws UploadRejected with the line of the first problem.
 */
export class CsvScanner extends Transform {
	readonly maxBytes: number
	readonly maxRecords: number
	#decoder = new TextDecoder('utf-8', { fatal: true })
	#bytes = 0
	#line = 1
	#records = 0
	#inQuotes = false
	#quoteLine = 1
	#afterQuote = false
	#fieldStart = true
	#hasContent = false
	#pendingCr = false
	#delimiter = -1
	#head: Buffer[] = []
	#headBytes = 0

	constructor(options: { maxBytes: number; maxRecords: number }) {
		super()
		this.maxBytes = options.maxBytes
		this.maxRecords = options.maxRecords
	}

	get result(): ScanResult {
		return {
			bytes: this.#bytes,
			records: this.#records,
			delimiter: String.fromCharCode(this.#delimiter < 0 ? 0x2c : this.#delimiter),
		}
	}

	override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
		try {
			if (this.#delimiter < 0) {
				// Sniff the delimiter from the first line (or the first 64 KB).
				this.#head.push(chunk)
				this.#headBytes += chunk.length
				const head = Buffer.concat(this.#head)
				if (head.includes(LF) || this.#headBytes >= 65536) {
					this.#head = []
					this.#start(head)
					this.#scan(head)
					callback(null, head)
				} else callback()
				return
			}
			this.#scan(chunk)
			callback(null, chunk)
		} catch (error) {
			callback(error as Error)
		}
	}

	override _flush(callback: TransformCallback) {
		try {
			if (this.#delimiter < 0) {
				const head = Buffer.concat(this.#head)
				this.#start(head)
				this.#scan(head)
				this.push(head)
			}
			this.#decode(new Uint8Array(0), false, () => this.#line)
			if (this.#inQuotes) {
				throw new UploadRejected(
					`The quoted cell that starts on line ${this.#quoteLine} is never closed. Check the quotes in the file.`,
				)
			}
			if (this.#hasContent) this.#countRecord()
			callback()
		} catch (error) {
			callback(error as Error)
		}
	}

	#start(head: Buffer) {
		if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) {
			throw new UploadRejected(
				'This is a spreadsheet workbook, not a CSV file. Save it as “CSV UTF-8” and upload that.',
			)
		}
		if (head.length >= 2 && (head.readUInt16BE(0) === 0xfffe || head.readUInt16BE(0) === 0xfeff)) {
			throw new UploadRejected(
				'This file is UTF-16 text. Save it as “CSV UTF-8” and upload it again.',
			)
		}
		this.#delimiter = sniffDelimiter(head)
	}

	#decode(chunk: Uint8Array, stream: boolean, lineAtStart: () => number) {
		try {
			this.#decoder.decode(chunk, { stream })
		} catch {
			const line = lineAtStart() + lineBreaksBefore(chunk, firstInvalidUtf8(chunk))
			throw new UploadRejected(
				`This file is not UTF-8 text (the first problem is on line ${line}). Save it as “CSV UTF-8” and upload it again.`,
			)
		}
	}

	#countRecord() {
		this.#records++
		if (this.#records > this.maxRecords) {
			throw new UploadRejected(
				`This file has more than ${(this.maxRecords - 1).toLocaleString('en')} rows. Split it and upload the parts.`,
			)
		}
	}

	#scan(chunk: Buffer) {
		this.#bytes += chunk.length
		if (this.#bytes > this.maxBytes) {
			throw new UploadRejected('This file is larger than the upload limit.', 413)
		}
		const delimiter = this.#delimiter
		let line = this.#line
		const lineAtStart = line
		const length = chunk.length
		for (let i = 0; i < length; i++) {
			const byte = chunk[i]!
			if (this.#pendingCr) {
				this.#pendingCr = false
				if (byte === LF) continue
			}
			if (this.#inQuotes) {
				if (byte === QUOTE) {
					this.#inQuotes = false
					this.#afterQuote = true
				} else if (byte === LF || byte === CR) {
					line++
					if (byte === CR) this.#pendingCr = true
				} else if (byte === 0) this.#binary(line)
				continue
			}
			if (this.#afterQuote) {
				this.#afterQuote = false
				if (byte === QUOTE) {
					// "" inside a quoted cell
					this.#inQuotes = true
					continue
				}
				if (byte !== delimiter && byte !== LF && byte !== CR && byte !== SPACE && byte !== TAB) {
					this.#line = line
					throw new UploadRejected(
						`Line ${line} has text after a closing quote. Quote the whole cell, and double any quote inside it ("").`,
					)
				}
			}
			if (byte === LF || byte === CR) {
				if (this.#hasContent) {
					this.#line = line
					this.#countRecord()
				}
				this.#hasContent = false
				this.#fieldStart = true
				line++
				if (byte === CR) this.#pendingCr = true
			} else if (byte === delimiter) {
				this.#fieldStart = true
			} else if (byte === QUOTE) {
				this.#hasContent = true
				if (this.#fieldStart) {
					this.#inQuotes = true
					this.#quoteLine = line
				}
				this.#fieldStart = false
			} else if (byte === 0) {
				this.#binary(line)
			} else if (byte !== SPACE && byte !== TAB) {
				this.#hasContent = true
				this.#fieldStart = false
			}
		}
		// in pieces of 64 KB: a larger string would go straight to V8's old generation
		for (let start = 0; start < chunk.length; start += 65536) {
			const piece = chunk.subarray(start, start + 65536)
			this.#decode(piece, true, () => lineAtStart + lineBreaksBefore(chunk, start))
		}
		this.#line = line
	}

	#binary(line: number): never {
		throw new UploadRejected(
			`This is not a text CSV file (it has binary data on line ${line}). Save it as “CSV UTF-8” and upload that.`,
		)
	}
}

const CANDIDATES = [0x2c, 0x3b, 0x09, 0x7c] // , ; tab |

/** The delimiter used most outside quotes on the first line; a comma when none is. */
export function sniffDelimiter(head: Buffer): number {
	const counts = new Map<number, number>(CANDIDATES.map((c) => [c, 0]))
	let inQuotes = false
	for (let i = 0; i < head.length; i++) {
		const byte = head[i]!
		if (byte === QUOTE) inQuotes = !inQuotes
		else if (!inQuotes && (byte === LF || byte === CR)) break
		else if (!inQuotes && counts.has(byte)) counts.set(byte, counts.get(byte)! + 1)
	}
	let best = 0x2c
	let bestCount = 0
	for (const [candidate, count] of counts) {
		if (count > bestCount) {
			best = candidate
			bestCount = count
		}
	}
	return best
}

/** Where the first byte that cannot be UTF-8 is (continuations of the last chunk's character are fine). */
function firstInvalidUtf8(bytes: Uint8Array): number {
	let i = 0
	while (i < bytes.length && i < 3 && (bytes[i]! & 0xc0) === 0x80) i++
	while (i < bytes.length) {
		const byte = bytes[i]!
		const need =
			byte < 0x80
				? 0
				: byte >= 0xc2 && byte < 0xe0
					? 1
					: byte >= 0xe0 && byte < 0xf0
						? 2
						: byte >= 0xf0 && byte < 0xf5
							? 3
							: -1
		if (need < 0) return i
		for (let k = 1; k <= need; k++) {
			if (i + k >= bytes.length) return bytes.length
			if ((bytes[i + k]! & 0xc0) !== 0x80) return i
		}
		i += need + 1
	}
	return bytes.length
}

function lineBreaksBefore(bytes: Uint8Array, end: number) {
	let breaks = 0
	for (let i = 0; i < end; i++) {
		if (bytes[i] === LF) breaks++
		else if (bytes[i] === CR && bytes[i + 1] !== LF) breaks++
	}
	return breaks
}
