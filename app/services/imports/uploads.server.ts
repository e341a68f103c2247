import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parse } from 'csv-parse/sync'
import { getConfig } from '../../config.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { CsvScanner, UploadRejected } from './csv-scan.server.ts'
import { detectHeader, guessMapping, MAX_IMPORT_ROWS, PREVIEW_ROWS } from './mapping.ts'

/**
 * Uploaded CSV files wait in DATA_DIR/uploads/pending while the person maps their
 * columns (a day at most), then move to DATA_DIR/uploads/imports/<list id>.csv for the
 * csv-import job, which deletes them when it ends. Processes that run workers must see
 * the same DATA_DIR as the web processes (one machine, or a shared volume).
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

function pendingPaths(id: string) {
	const dir = path.join(uploadsRoot(), 'pending')
	return { dir, csv: path.join(dir, `${id}.csv`), meta: path.join(dir, `${id}.json`) }
}

/** The file of an import, relative to the uploads root (stored in csv_imports.file_path). */
export function importFilePath(listId: string) {
	return path.join('imports', `${listId}.csv`)
}

export function resolveUploadPath(relative: string) {
	const root = uploadsRoot()
	const resolved = path.resolve(root, relative)
	if (!resolved.startsWith(root + path.sep)) throw new Error('upload path outside the uploads root')
	return resolved
}

/**
 * Streams an uploaded CSV to disk, checking it on the way (see CsvScanner), then reads
 * its first rows for the mapping step. A file without an email column is refused. Throws
 * UploadRejected (nothing is kept) for anything the person has to fix.
 */
export async function receiveCsvUpload(input: {
	stream: Readable
	fileName: string
	accountId: string
	maxBytes: number
}): Promise<PendingUpload> {
	const id = randomUUID()
	const paths = pendingPaths(id)
	await mkdir(paths.dir, { recursive: true })
	void cleanStalePending()
	const scanner = new CsvScanner({ maxBytes: input.maxBytes, maxRecords: MAX_IMPORT_ROWS + 1 })
	const partial = `${paths.csv}.part`
	try {
		await pipeline(input.stream, scanner, createWriteStream(partial, { flags: 'wx' }))
		const { records, delimiter, bytes } = scanner.result
		if (records === 0) throw new UploadRejected('This file is empty.')
		const head = await readHead(partial, delimiter)
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
		await rename(partial, paths.csv)
		await writeFile(paths.meta, JSON.stringify(upload), { flag: 'wx' })
		return upload
	} catch (error) {
		await Promise.all([rm(partial, { force: true }), rm(paths.csv, { force: true })])
		input.stream.resume()
		throw error
	}
}

/** The first records of the file (parsed as the importer will), for the mapping step. */
async function readHead(file: string, delimiter: string): Promise<string[][]> {
	const handle = await open(file, 'r')
	try {
		const buffer = Buffer.alloc(1 << 20)
		const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
		const records = parse(buffer.subarray(0, bytesRead), {
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
	} finally {
		await handle.close()
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
	const raw = await readFile(pendingPaths(id).meta, 'utf8').catch(() => null)
	const upload = raw ? (JSON.parse(raw) as PendingUpload) : null
	if (!upload || upload.accountId !== accountId) notFound('This upload')
	return upload
}

export async function discardPendingUpload(accountId: string, id: unknown) {
	const upload = await readPendingUpload(accountId, id)
	const paths = pendingPaths(upload.id)
	await Promise.all([rm(paths.csv, { force: true }), rm(paths.meta, { force: true })])
}

/** Moves a pending upload to where the import job reads it; returns its relative path. */
export async function claimPendingUpload(upload: PendingUpload, listId: string) {
	const paths = pendingPaths(upload.id)
	const relative = importFilePath(listId)
	const target = resolveUploadPath(relative)
	await mkdir(path.dirname(target), { recursive: true })
	await rename(paths.csv, target)
	await rm(paths.meta, { force: true })
	return relative
}

export async function removeImportFile(relative: string) {
	await rm(resolveUploadPath(relative), { force: true }).catch((error) =>
		logger.warn({ err: error, file: relative }, 'could not remove an import file'),
	)
}

let lastClean = 0

/** Pending uploads nobody mapped within a day are removed (at most once an hour). */
async function cleanStalePending() {
	if (Date.now() - lastClean < 3600_000) return
	lastClean = Date.now()
	const dir = pendingPaths('x').dir
	try {
		for (const name of await readdir(dir)) {
			const file = path.join(dir, name)
			const info = await stat(file).catch(() => null)
			if (info && Date.now() - info.mtimeMs > PENDING_TTL_MS) await rm(file, { force: true })
		}
	} catch (error) {
		logger.warn({ err: error }, 'could not clean stale uploads')
	}
}
