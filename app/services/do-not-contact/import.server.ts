import { Readable, Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import busboy from 'busboy'
import { Parser } from 'csv-parse'
import { from as copyFrom } from 'pg-copy-streams'
import { getPool } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { copyValue } from '../imports/copy-format.ts'
import { dncAccount, writableScope } from './entries.server.ts'
import { parseEntry, type DncReason } from './schemas.ts'

/** Bad lines kept to show (all are counted). */
export const MAX_SHOWN_ERRORS = 200

export type DncImportOutcome = {
	read: number
	added: number
	/** valid lines already on the list (or repeated in the file) */
	already: number
	invalid: number
	errors: { line: number; message: string }[]
}

const HEADER = new Set(['email', 'emails', 'domain', 'domains', 'value', 'entry', 'email address'])

/**
 * Reads the lines of a CSV of emails and domains (the first column; a header naming it is
 * skipped) into COPY rows `line<TAB>value`, chunked; bad lines are kept by their line number.
 */
class EntryRows extends Transform {
	outcome: DncImportOutcome = { read: 0, added: 0, already: 0, invalid: 0, errors: [] }
	private chunk: string[] = []
	private chunkLength = 0
	private first = true
	private allowFreeMail: boolean
	constructor(allowFreeMail: boolean) {
		super({ writableObjectMode: true })
		this.allowFreeMail = allowFreeMail
	}
	override _transform(
		item: { record: string[]; info: { lines: number } },
		_encoding: string,
		done: TransformCallback,
	) {
		const cell = (item.record.find((c) => c.trim() !== '') ?? '').trim()
		const line = item.info.lines
		const first = this.first
		this.first = false
		if (cell === '' || (first && HEADER.has(cell.toLowerCase()))) return done()
		this.outcome.read++
		const parsed = parseEntry(cell)
		const problem = !parsed.ok
			? parsed.problem
			: parsed.freeMail && !this.allowFreeMail
				? `${parsed.value} is a free mail domain: tick "Include free mail domains" to block it`
				: null
		if (problem || !parsed.ok) {
			this.outcome.invalid++
			if (this.outcome.errors.length < MAX_SHOWN_ERRORS)
				this.outcome.errors.push({ line, message: problem ?? 'Not an email or a domain' })
			return done()
		}
		const row = `${line}\t${copyValue(parsed.value)}\n`
		this.chunk.push(row)
		this.chunkLength += row.length
		if (this.chunkLength >= 64 * 1024) this.flushChunk()
		done()
	}
	override _flush(done: TransformCallback) {
		this.flushChunk()
		done()
	}
	private flushChunk() {
		if (this.chunk.length) this.push(this.chunk.join(''))
		this.chunk = []
		this.chunkLength = 0
	}
}

/**
 * Imports a CSV of emails and domains as a stream (flat memory whatever its size): parsed
 * line by line, good lines COPYed into a staging table, then one INSERT ... SELECT adds the
 * new ones in one transaction (a file either lands or does not). Bad lines are reported by
 * their line number and written nowhere.
 */
export async function importEntries(
	account: AccountContext | null,
	input: { reason: DncReason; scope: string; allowFreeMail?: boolean },
	file: Readable,
): Promise<DncImportOutcome> {
	const access = dncAccount(account)
	let workspaceId: string | null
	try {
		workspaceId = writableScope(access, input.scope)
	} catch (error) {
		file.resume()
		throw error
	}
	const rows = new EntryRows(Boolean(input.allowFreeMail))
	const client = await getPool().connect()
	try {
		const started = performance.now()
		await client.query('begin')
		await client.query(
			'create temp table dnc_stage (line integer not null, value text not null) on commit drop',
		)
		await pipeline(
			file,
			new Parser({
				bom: true,
				delimiter: [',', ';', '\t'],
				record_delimiter: ['\r\n', '\n', '\r'],
				relax_column_count: true,
				relax_quotes: true,
				skip_empty_lines: false,
				info: true,
			}),
			rows,
			client.query(copyFrom('copy dnc_stage (line, value) from stdin')),
		)
		const copied = performance.now()
		const { rows: inserted } = await client.query<{ n: number }>(
			`with added as (
				insert into do_not_contact (user_id, workspace_id, value, reason, added_by)
				select $1, $2::uuid, value, $3, $4 from dnc_stage order by value
				on conflict do nothing
				returning 1
			)
			select count(*)::int as n from added`,
			[access.acting.accountId, workspaceId, input.reason, access.acting.user.id],
		)
		await client.query('commit')
		if (process.env.DNC_TIMING)
			console.log('dnc import', { copy: copied - started, insert: performance.now() - copied })
		const outcome = rows.outcome
		outcome.added = inserted[0]!.n
		outcome.already = outcome.read - outcome.invalid - outcome.added
		return outcome
	} catch (error) {
		await client.query('rollback').catch(() => {})
		// csv-parse's own errors (CSV_*): the file is not CSV
		if (
			error &&
			typeof error === 'object' &&
			'code' in error &&
			String(error.code).startsWith('CSV_')
		)
			throw new FormError(
				'This file could not be read as CSV. Save it as CSV and try again.',
				'file',
			)
		throw error
	} finally {
		client.release()
	}
}

/**
 * Reads the import form as it streams in: the text fields (which come before the file in the
 * form) are handed with the file's stream to `onFile`; nothing is held in memory or on disk.
 */
export async function readEntriesUpload<T>(
	request: Request,
	onFile: (fields: Record<string, string>, file: Readable) => Promise<T>,
): Promise<{ fields: Record<string, string>; result: T | null }> {
	const contentType = request.headers.get('content-type') ?? ''
	if (!contentType.startsWith('multipart/form-data') || !request.body)
		throw new FormError('Choose a CSV file', 'file')
	const limit = getConfig().UPLOAD_LIMIT_BYTES
	let parser: busboy.Busboy
	try {
		parser = busboy({
			headers: { 'content-type': contentType },
			limits: { files: 1, fileSize: limit, fields: 20, fieldSize: 64 * 1024, parts: 25 },
		})
	} catch {
		throw new FormError('This upload could not be read. Choose the file again.', 'file')
	}
	const fields: Record<string, string> = {}
	return new Promise((resolve, reject) => {
		let work: Promise<T> | null = null
		parser.on('field', (name, value) => {
			fields[name] = value
		})
		parser.on('file', (_name, stream, info) => {
			if (work || !info.filename) {
				stream.resume()
				return
			}
			stream.on('limit', () =>
				stream.destroy(
					new FormError('This file is too large. Split it and upload the parts.', 'file'),
				),
			)
			work = onFile({ ...fields }, stream)
			// a failure answers at once, whatever is left of the body
			work.catch(reject)
		})
		// a broken or cut-off form is the sender's mistake: a 400 at the file field, never a 500
		// (the file's own size limit errors on its stream, above, not here)
		parser.on('error', () =>
			reject(new FormError('This upload could not be read. Choose the file again.', 'file')),
		)
		parser.on('close', () => {
			if (!work) return resolve({ fields, result: null })
			work.then((result) => resolve({ fields, result }), reject)
		})
		Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>).pipe(parser)
	})
}
