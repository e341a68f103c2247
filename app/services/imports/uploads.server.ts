import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parse } from 'csv-parse/sync'
import { data } from 'react-router'
import { getConfig } from '../../config.server.ts'
import {
	FileNotFound,
	fileStorage,
	readSmallFile,
	StorageUnavailable,
} from '../../storage/file-storage.server.ts'
import { inBackground } from '../../utils/background.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { CsvScanner, UploadRejected } from './csv-scan.server.ts'
import { detectHeader, guessMapping, MAX_IMPORT_ROWS, PREVIEW_ROWS } from './mapping.ts'
import { isXlsxName, xlsxAsCsv } from './xlsx.server.ts'

/**
 * Uploaded CSV files wait as pending/<id>.csv (with pending/<id>.json, what the mapping step
 * shows) while the person maps their columns (a day at most), then move to
 * imports/<list id>.csv for the csv-import job, which deletes them when it ends. They live in
 * the file storage: DATA_DIR/uploads on one machine, or an S3-compatible bucket that web and
 * worker processes on other machines share (decision 0036).
 */
export function uploadsRoot() {
	return path.resolve(getConfig().DATA_DIR, 'uploads')
}

const PENDING_TTL_MS = 24 * 3600 * 1000

export type PendingUpload = {
	id: string
	accountId: string
	fileName: string
	size: number
	/** non-empty lines: the header (when there is one) and the rows */
	records: number
	delimiter: string
	/** the first records, as parsed, for the mapping step */
	head: string[][]
	createdAt: string
}

function pendingKeys(id: string) {
	return { csv: `pending/${id}.csv`, meta: `pending/${id}.json` }
}

/** The file of an import in the file storage (stored in csv_imports.file_path). */
export function importFilePath(listId: string) {
	return `imports/${listId}.csv`
}

/** What a person reads when the file storage fails (the details go to the log). */
export function storageProblem(error: StorageUnavailable) {
	return new UploadRejected(
		`The file could not be stored (${error.reason}). Try again in a few minutes; if it keeps failing, tell your platform admin.`,
		503,
	)
}

/**
 * Streams an uploaded CSV to the file storage, checking it on the way (see CsvScanner), then
 * reads its first rows for the mapping step. A file without an email column is refused.
 * Throws UploadRejected (nothing is kept) for anything the person has to fix, and for a
 * file storage that refuses or cannot be reached.
 */
export async function receiveCsvUpload(input: {
	stream: Readable
	fileName: string
	accountId: string
	maxBytes: number
}): Promise<PendingUpload> {
	const id = randomUUID()
	const keys = pendingKeys(id)
	const storage = await fileStorage()
	inBackground(cleanStalePending(), 'cleaning stale uploads failed')
	const scanner = new CsvScanner({ maxBytes: input.maxBytes, maxRecords: MAX_IMPORT_ROWS + 1 })
	const body = new PassThrough()
	try {
		// a workbook's first sheet comes in as the CSV it would be saved as (decision 0081)
		const source = isXlsxName(input.fileName)
			? await xlsxAsCsv(input.stream, input.maxBytes)
			: input.stream
		const stored = storage.write(keys.csv, body)
		// a storage that gives up stops reading: end the upload instead of waiting on it
		stored.catch((error: unknown) => body.destroy(error as Error))
		const [checked, written] = await Promise.allSettled([pipeline(source, scanner, body), stored])
		// the file's own fault first: the storage failing after it is only the consequence; a
		// storage that failed first ends the upload with its own raw error (the disk's write
		// error travels back up the stream), so the storage's reason is the one to tell
		if (
			written.status === 'rejected' &&
			written.reason instanceof StorageUnavailable &&
			!(checked.status === 'rejected' && checked.reason instanceof UploadRejected)
		)
			throw written.reason
		if (checked.status === 'rejected') throw checked.reason
		if (written.status === 'rejected') throw written.reason
		const { records, delimiter, bytes } = scanner.result
		if (records === 0) throw new UploadRejected('This file is empty.')
		const head = await readHead(keys.csv, delimiter)
		const hasHeader = detectHeader(head)
		if (hasHeader && records === 1) throw new UploadRejected('This file has a header but no rows.')
		const mapping = guessMapping(hasHeader ? head[0]! : null, head.slice(hasHeader ? 1 : 0))
		if (mapping.email === undefined) {
			throw new UploadRejected(
				'No email column found. The file needs a column of email addresses (for example with the header “Email”).',
			)
		}
		const upload: PendingUpload = {
			id,
			accountId: input.accountId,
			fileName: cleanFileName(input.fileName),
			size: bytes,
			records,
			delimiter,
			head,
			createdAt: new Date().toISOString(),
		}
		await storage.write(keys.meta, JSON.stringify(upload))
		return upload
	} catch (error) {
		input.stream.resume()
		await storage.remove(keys.csv).catch(() => {})
		if (error instanceof StorageUnavailable) {
			logger.error({ err: error, cause: error.cause }, 'an upload could not be stored')
			throw storageProblem(error)
		}
		throw error
	}
}

/** The first records of the file (parsed as the importer will), for the mapping step. */
async function readHead(key: string, delimiter: string): Promise<string[][]> {
	const first = await readSmallFile(await fileStorage(), key, { start: 0, end: (1 << 20) - 1 })
	try {
		const records = parse(first, {
			...csvOptions(delimiter),
			skip_empty_lines: true,
			to: PREVIEW_ROWS + 1,
		}) as string[][]
		return records
			.filter((record) => record.some((cell) => cell.trim() !== ''))
			.map((record) => record.map((cell) => cell.slice(0, 200)))
	} catch {
		// the first megabyte ends inside a quoted cell: show what the scanner could not
		return []
	}
}

/**
 * csv-parse options shared by the preview and the import job: a BOM is dropped, any line
 * ending ends a record (files glued together mix them), rows may have more or fewer cells
 * than the header, a quote inside an unquoted cell is kept as text, and spaces around a
 * quoted cell are ignored (CsvScanner has already refused anything else).
 */
export function csvOptions(delimiter: string) {
	return {
		bom: true,
		delimiter,
		record_delimiter: ['\r\n', '\n', '\r'],
		relax_column_count: true,
		relax_quotes: true,
		ltrim: true,
		rtrim: true,
	}
}

function cleanFileName(name: string) {
	const base = [...path.basename(name.replaceAll('\\', '/'))]
		.filter((c) => c >= ' ' && c !== '\u007f')
		.join('')
	return (base || 'upload.csv').slice(0, 200)
}

/** A pending upload of this account; anything else is not found. */
export async function readPendingUpload(accountId: string, id: unknown): Promise<PendingUpload> {
	if (!isUuid(id)) notFound('This upload')
	let raw: Buffer | null
	try {
		raw = await readSmallFile(await fileStorage(), pendingKeys(id).meta)
	} catch (error) {
		if (error instanceof StorageUnavailable) {
			logger.error({ err: error, cause: error.cause }, 'a pending upload could not be read')
			throw data(
				`The uploaded file cannot be read right now (${error.reason}). Try again in a few minutes.`,
				{ status: 503 },
			)
		}
		if (!(error instanceof FileNotFound)) throw error
		raw = null
	}
	const upload = raw ? (JSON.parse(raw.toString('utf8')) as PendingUpload) : null
	if (!upload || upload.accountId !== accountId) notFound('This upload')
	// expired: the cleanup may not have come round yet
	if (Date.now() - Date.parse(upload.createdAt) > PENDING_TTL_MS) notFound('This upload')
	return upload
}

export async function discardPendingUpload(accountId: string, id: unknown) {
	const upload = await readPendingUpload(accountId, id)
	const keys = pendingKeys(upload.id)
	const storage = await fileStorage()
	await Promise.all([storage.remove(keys.csv), storage.remove(keys.meta)])
}

/** Moves a pending upload to where the import job reads it; returns its key. */
export async function claimPendingUpload(upload: PendingUpload, listId: string) {
	const keys = pendingKeys(upload.id)
	const target = importFilePath(listId)
	const storage = await fileStorage()
	await storage.move(keys.csv, target)
	await storage.remove(keys.meta)
	return target
}

export async function removeImportFile(key: string) {
	await (
		await fileStorage()
	)
		.remove(key)
		.catch((error: unknown) =>
			logger.warn({ err: error, file: key }, 'could not remove an import file'),
		)
}

let lastClean = 0

/**
 * Pending uploads nobody mapped within a day are removed (at most once an hour per process;
 * an S3 bucket may also expire "pending/" with a lifecycle rule, see docs/deploy.md).
 */
export async function cleanStalePending(now = Date.now()) {
	if (now - lastClean < 3600_000) return
	lastClean = now
	try {
		const storage = await fileStorage()
		for await (const file of storage.list('pending/')) {
			if (now - file.modifiedAt.getTime() > PENDING_TTL_MS) await storage.remove(file.key)
		}
	} catch (error) {
		logger.warn({ err: error }, 'could not clean stale uploads')
	}
}

/** Tests: the next cleanStalePending runs whatever the time since the last one. */
export function allowCleanNow() {
	lastClean = 0
}
