import type { Readable } from 'node:stream'
import { Parser, type CsvError } from 'csv-parse'
import { sql } from 'kysely'
import type pg from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'
import { db, getPool } from '../../../db/index.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import { FileNotFound, fileStorage, StorageUnavailable } from '../../storage/file-storage.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { MARK_EVERY, requestPageMarks } from '../lists/page-marks.server.ts'
import { AddressSet } from './address-set.ts'
import { CopyBuffer, formatRow, invalidLine, type ImportMapping } from './copy-format.ts'
import { MAX_IMPORT_ROWS } from './mapping.ts'
import { csvOptions, removeImportFile } from './uploads.server.ts'

export const CSV_IMPORT_RETRY_LIMIT = 5

/** Batch and read sizes (tests make them small to get many batches out of a small file). */
export const importTuning = { batchRows: 20_000, chunkBytes: 128 * 1024 }

/**
 * Test hooks: a throw from `beforeCommit` is a worker dying inside a batch's transaction
 * (it rolls back), from `afterCommit` one dying right after a checkpoint.
 */
export const importHooks: {
	beforeCommit?: (listId: string, batch: number) => void | Promise<void>
	afterCommit?: (listId: string, batch: number) => void | Promise<void>
} = {}

const STATUS = { pending: 0, processing: 1, success: 2, fail: 3 } as const

/** The import cannot succeed whatever happens next: the list fails with this reason. */
class ImportFailure extends Error {}
/** Another worker owns this import now, or the list was cancelled or deleted. */
class ImportStopped extends Error {}
/** A row written straight into leads was there already after all: go on checking each in SQL. */
class AddressConflict extends Error {}

type ImportState = {
	list_id: string
	user_id: string
	workspace_id: string | null
	status: number
	file_path: string
	delimiter: string
	has_header: boolean
	mapping: ImportMapping
	rows_total: number
	bytes_done: number
	next_line: number
	rows_done: number
}

/** Where an import's time went (milliseconds, in this process), logged when it ends. */
const timings = { parse: 0, copy: 0, insert: 0 }

/**
 * The csv-import job. It reads the uploaded file from the checkpoint on and parses it as a
 * stream (csv-parse); every email is checked, and each batch of rows is written in one
 * transaction with the checkpoint (bytes and lines done, counts), so a worker that dies
 * resumes where the last batch ended and no lead is lost or written twice.
 *
 * Rows go two ways. An address this import has certainly not written yet (AddressSet, rebuilt
 * from the list when resuming) is copied straight into leads with COPY, as fast as COPY
 * goes. Everything else (invalid rows, repeated addresses, non-ASCII addresses whose lower
 * case PostgreSQL might see differently, company domains to normalise) is copied into a
 * staging table and settled in SQL (lower(email), normalize_company_domain; decision 0081):
 * INSERT ... SELECT ... ON CONFLICT DO NOTHING against the list's unique (list_id,
 * lower(email)) index, with invalid and duplicate rows recorded by the line they start on.
 * Should a straight COPY ever meet an address already there, its batch rolls back and the
 * run goes on sending every row through the staging table.
 */
export async function runCsvImport(
	listId: string,
	context: { retryCount?: number; signal?: AbortSignal } = {},
) {
	const state = await loadState(listId)
	if (!state || state.status === STATUS.success || state.status === STATUS.fail) return
	const started = await db
		.updateTable('processing_list')
		.set({
			status: STATUS.processing,
			started_at: sql`coalesce(started_at, now())`,
			updated_at: sql`now()`,
		})
		.where('id', '=', listId)
		.where('status', 'in', [STATUS.pending, STATUS.processing])
		.executeTakeFirst()
	if (started.numUpdatedRows === 0n) return
	try {
		try {
			await importFile(state, context.signal, false)
		} catch (error) {
			if (!(error instanceof AddressConflict)) throw error
			logger.warn({ listId }, 'csv import: an address was in the list already; checking each row')
			const resumed = await loadState(listId)
			if (!resumed || resumed.status !== STATUS.processing) return
			await importFile(resumed, context.signal, true)
		}
		await finish(state)
	} catch (error) {
		if (error instanceof ImportStopped) return
		if (error instanceof ImportFailure) {
			await fail(state, error.message)
			return
		}
		if (!context.signal?.aborted && (context.retryCount ?? 0) >= CSV_IMPORT_RETRY_LIMIT) {
			await fail(
				state,
				error instanceof StorageUnavailable
					? `The uploaded file could not be read from the file storage (${error.reason}). Upload it again.`
					: 'The import stopped because of an internal error. Upload the file again.',
			)
		}
		throw error
	}
}

async function loadState(listId: string): Promise<ImportState | undefined> {
	const row = await db
		.selectFrom('processing_list as l')
		.innerJoin('csv_imports as i', 'i.list_id', 'l.id')
		.select([
			'l.id as list_id',
			'l.user_id',
			'l.workspace_id',
			'l.status',
			'i.file_path',
			'i.delimiter',
			'i.has_header',
			'i.mapping',
			'i.rows_total',
			'i.bytes_done',
			'i.next_line',
			'i.rows_done',
		])
		.where('l.id', '=', listId)
		.executeTakeFirst()
	return row as ImportState | undefined
}

type Batch = {
	number: number
	/** rows for COPY straight into leads */
	direct: CopyBuffer
	/** rows for the staging table */
	staged: CopyBuffer
	rows: number
	/** where the batch's last record ends, and the line after it */
	endBytes: number
	nextLine: number
}

async function importFile(state: ImportState, signal: AbortSignal | undefined, checkAll: boolean) {
	let file: Readable
	try {
		// from the checkpoint on: a resumed import reads only what is left (a ranged GET on S3)
		file = await (await fileStorage()).read(state.file_path, { start: state.bytes_done })
	} catch (error) {
		if (error instanceof FileNotFound) {
			throw new ImportFailure('The uploaded file is no longer available. Upload it again.')
		}
		throw error
	}
	timings.parse = timings.copy = timings.insert = 0
	const client = await getPool().connect()
	let broken = false
	try {
		await client.query(STAGE_TABLE)
		const written = checkAll ? null : await writtenAddresses(client, state)
		const writer = new BatchWriter(client, state)
		const reader = new RecordReader(state, importTuning.batchRows, written)
		let pending: Promise<void> = Promise.resolve()
		const queue = async (batch: Batch) => {
			// One batch writes while the next one is parsed.
			await pending
			pending = writer.write(batch).then(() => reader.recycle(batch))
			pending.catch(() => {})
		}
		for await (const received of file) {
			const bytes = received as Buffer
			for (let at = 0; at < bytes.length; at += importTuning.chunkBytes) {
				if (signal?.aborted) throw new Error('The worker is stopping; the import resumes later.')
				const parsing = performance.now()
				await reader.write(bytes.subarray(at, at + importTuning.chunkBytes))
				timings.parse += performance.now() - parsing
				for (const batch of reader.takeReady()) await queue(batch)
			}
		}
		await reader.end()
		for (const batch of reader.takeReady()) await queue(batch)
		const last = reader.takeRest()
		if (last) await queue(last)
		await pending
	} catch (error) {
		broken = connectionBroken(error)
		throw error
	} finally {
		file.destroy()
		client.release(broken ? true : undefined)
	}
}

// A connection that failed outside SQL (network, COPY protocol) is not given back to the pool.
function connectionBroken(error: unknown) {
	return (
		!(
			error instanceof ImportFailure ||
			error instanceof ImportStopped ||
			error instanceof AddressConflict
		) && !isSqlError(error)
	)
}

function isSqlError(error: unknown) {
	return typeof error === 'object' && error !== null && 'severity' in error && 'code' in error
}

/** The addresses already in the list (a resumed import), streamed into an AddressSet. */
async function writtenAddresses(client: pg.PoolClient, state: ImportState) {
	const set = new AddressSet(state.rows_total)
	if (state.bytes_done === 0) return set
	const stream = client.query(
		copyTo(
			`copy (select lower(email) from leads where list_id = '${uuid(state.list_id)}') to stdout`,
		),
	)
	let rest = ''
	for await (const chunk of stream as AsyncIterable<Buffer>) {
		const lines = (rest + chunk.toString('utf8')).split('\n')
		rest = lines.pop()!
		for (const line of lines) set.add(line)
	}
	if (rest) set.add(rest)
	return set
}

/** Parses the file's bytes into batches of COPY rows, keeping lines and byte offsets. */
class RecordReader {
	#parser: Parser
	#state: ImportState
	#batchRows: number
	#written: AddressSet | null
	#prefix: string
	#ready: Batch[] = []
	#current: Batch
	#line: number
	#rowsDone: number
	#skipHeader: boolean
	#batches = 0
	#failure: Error | null = null
	#free: Buffer[] = []

	constructor(state: ImportState, batchRows: number, written: AddressSet | null) {
		this.#state = state
		this.#batchRows = batchRows
		this.#written = written
		this.#prefix = `${state.list_id}\t${state.user_id}\t${state.workspace_id ?? '\\N'}\t`
		this.#line = state.next_line
		this.#rowsDone = state.rows_done
		this.#skipHeader = state.has_header && state.bytes_done === 0
		this.#current = this.#newBatch(state.bytes_done)
		const base = state.bytes_done
		this.#parser = new Parser({
			...csvOptions(state.delimiter),
			skip_empty_lines: false,
			// Records are handled here and dropped, so no object goes through the stream.
			on_record: (record: string[], info) => {
				try {
					this.#onRecord(record, base + info.bytes)
				} catch (error) {
					this.#failure ??= error as Error
				}
				return null
			},
		})
		this.#parser.on('error', () => {})
		this.#parser.resume()
	}

	#newBatch(endBytes: number): Batch {
		const buffer = () => this.#free.pop() ?? Buffer.allocUnsafeSlow(1 << 20)
		return {
			number: ++this.#batches,
			direct: new CopyBuffer(buffer()),
			staged: new CopyBuffer(buffer()),
			rows: 0,
			endBytes,
			nextLine: this.#line,
		}
	}

	/** A written batch's buffers serve a later batch. */
	recycle(batch: Batch) {
		for (const part of [batch.direct, batch.staged]) {
			if (this.#free.length < 4) this.#free.push(part.buffer)
		}
	}

	write(chunk: Buffer) {
		return new Promise<void>((resolve, reject) => {
			this.#parser.write(chunk, (error) => {
				if (error) reject(this.#parseFailure(error))
				else if (this.#failure) reject(this.#failure)
				else resolve()
			})
		})
	}

	end() {
		return new Promise<void>((resolve, reject) => {
			this.#parser.once('error', (error) => reject(this.#parseFailure(error)))
			this.#parser.end(() => (this.#failure ? reject(this.#failure) : resolve()))
		})
	}

	#parseFailure(error: Error) {
		const detail = (error as CsvError).code ? error.message.replace(/\s*at line \d+.*$/s, '') : ''
		return new ImportFailure(
			`The file could not be read from line ${this.#line} on${detail ? ` (${detail})` : ''}.`,
		)
	}

	takeReady() {
		const ready = this.#ready
		this.#ready = []
		return ready
	}

	/** The last, partly filled batch (or one that only moves the checkpoint past blank lines). */
	takeRest() {
		const rest = this.#current
		return rest.rows > 0 || rest.endBytes > this.#state.bytes_done ? rest : null
	}

	#onRecord(record: string[], endBytes: number) {
		const line = this.#line
		this.#line += 1 + lineBreaks(record)
		const batch = this.#current
		batch.endBytes = endBytes
		batch.nextLine = this.#line
		if (this.#skipHeader) {
			this.#skipHeader = false
			return
		}
		if (isBlank(record)) return
		if (++this.#rowsDone > MAX_IMPORT_ROWS) {
			throw new ImportFailure(
				`The file has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows; split it and upload the parts.`,
			)
		}
		const row = formatRow(record, this.#state.mapping)
		if (!row.ok) batch.staged.append(invalidLine(line, row.raw, row.problem))
		else if (
			this.#written &&
			row.plainDomain &&
			isAscii(row.email) &&
			this.#written.add(row.email)
		) {
			batch.direct.append(`${this.#prefix}${row.body}\n`)
		} else batch.staged.append(`${line}\t${row.body}\t\\N\n`)
		if (++batch.rows >= this.#batchRows) {
			this.#ready.push(batch)
			this.#current = this.#newBatch(endBytes)
		}
	}
}

const ASCII = /^[\x20-\x7e]*$/

// ASCII addresses lower-case the same in JavaScript and in PostgreSQL (a Turkish collation's
// dotless i only makes two addresses differ, which the staging path then settles).
function isAscii(value: string) {
	return ASCII.test(value)
}

function isBlank(record: string[]) {
	for (const cell of record) if (cell.trim() !== '') return false
	return true
}

function lineBreaks(record: string[]) {
	let breaks = 0
	for (const cell of record) {
		if (cell.indexOf('\n') < 0 && cell.indexOf('\r') < 0) continue
		breaks += cell.match(/\r\n|\r|\n/g)!.length
	}
	return breaks
}

const STAGE_TABLE = `
create temp table if not exists csv_import_stage (
	line integer not null,
	email text,
	first_name text,
	last_name text,
	title text,
	company_name text,
	company_domain text,
	linkedin_url text,
	location text,
	phone text,
	email_status text,
	data jsonb,
	problem text
) on commit delete rows`

const COPY_STAGE = `copy csv_import_stage (line, email, first_name, last_name, title, company_name,
	company_domain, linkedin_url, location, phone, email_status, data, problem) from stdin`

const COPY_LEADS = `copy leads (list_id, user_id, workspace_id, email, first_name, last_name, title,
	company_name, company_domain, linkedin_url, location, phone, email_status, data) from stdin`

// Staged rows: the first row of each address (within the batch, by line) goes in; the list's
// unique (list_id, lower(email)) index turns away addresses already there.
const WRITE_STAGED = `
with ranked as (
	select s.*, row_number() over (partition by lower(s.email) order by s.line) as rn
	from csv_import_stage s
	where s.problem is null
),
inserted as (
	insert into leads (list_id, user_id, workspace_id, email, first_name, last_name, title,
		company_name, company_domain, linkedin_url, location, phone, email_status, data)
	select $1::uuid, $2::uuid, $3::uuid, lower(email), first_name, last_name, title, company_name,
		normalize_company_domain(company_domain), linkedin_url, location, phone, email_status,
		coalesce(data, '{}'::jsonb)
	from ranked
	where rn = 1
	order by line
	on conflict (list_id, lower(email)) do nothing
	returning lower(email) as address
),
rejected as (
	insert into csv_import_errors (list_id, line, kind, email, message)
	select $1::uuid, line, 'invalid', email, problem from csv_import_stage where problem is not null
	union all
	select $1::uuid, r.line, 'duplicate', r.email, 'Duplicate: an earlier row has this email address'
	from ranked r
	where r.rn > 1 or not exists (select 1 from inserted i where i.address = lower(r.email))
	on conflict (list_id, line) do nothing
	returning kind
)
select
	(select count(*) from inserted)::int as imported,
	(select count(*) from rejected where kind = 'invalid')::int as invalid,
	(select count(*) from rejected where kind = 'duplicate')::int as duplicates`

// These two are sent with other statements in one simple query, which takes no parameters:
// the list id is a checked uuid and the rest are integers.
function lockCheckpoint(listId: string) {
	return `select l.status, i.bytes_done from processing_list l
	join csv_imports i on i.list_id = l.id
	where l.id = '${uuid(listId)}' for no key update of l, i`
}

function checkpoint(
	listId: string,
	values: [
		bytesDone: number,
		nextLine: number,
		rows: number,
		imported: number,
		invalid: number,
		duplicates: number,
	],
) {
	const [bytesDone, nextLine, rows, imported, invalid, duplicates] = values.map(integer)
	return `with checkpoint as (
	update csv_imports
	set bytes_done = ${bytesDone}, next_line = ${nextLine}, rows_done = rows_done + ${rows},
		imported = imported + ${imported}, invalid = invalid + ${invalid},
		duplicates = duplicates + ${duplicates}, batches = batches + 1, updated_at = now()
	where list_id = '${uuid(listId)}'
	returning list_id, imported, rows_done, rows_total
)
update processing_list l
set found = c.imported,
	progress = least(99, c.rows_done * 100 / greatest(c.rows_total, 1)),
	updated_at = now()
from checkpoint c
where l.id = c.list_id`
}

function uuid(value: string) {
	if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
		throw new Error('not a uuid')
	}
	return value
}

function integer(value: number) {
	if (!Number.isSafeInteger(value)) throw new Error('not an integer')
	return value
}

/** Writes batches in order, each in one transaction with its checkpoint. */
class BatchWriter {
	#client: pg.PoolClient
	#state: ImportState
	#committedBytes: number

	constructor(client: pg.PoolClient, state: ImportState) {
		this.#client = client
		this.#state = state
		this.#committedBytes = state.bytes_done
	}

	async write(batch: Batch) {
		const client = this.#client
		const { list_id: listId } = this.#state
		// Three round trips a batch (begin and lock; COPY; checkpoint and commit): each one waits
		// for this process, which is busy parsing the next batch.
		const opened = (await client.query(
			`begin; ${lockCheckpoint(listId)}`,
		)) as unknown as pg.QueryResult<{ status: number; bytes_done: number }>[]
		try {
			// The list and its checkpoint are locked: a cancel or delete waits for this batch, and a
			// second worker on the same import waits here, then reads the checkpoint it moved.
			const current = opened[1]!.rows[0]
			if (
				current?.status !== STATUS.processing ||
				Number(current.bytes_done) !== this.#committedBytes
			) {
				throw new ImportStopped()
			}
			const counts = { imported: 0, invalid: 0, duplicates: 0 }
			if (batch.direct.rows > 0) {
				const started = performance.now()
				try {
					await copyRows(client, COPY_LEADS, batch.direct.bytes)
				} catch (error) {
					if ((error as { code?: string }).code === '23505') throw new AddressConflict()
					throw error
				}
				counts.imported += batch.direct.rows
				timings.copy += performance.now() - started
			}
			if (batch.staged.rows > 0) {
				let started = performance.now()
				await copyRows(client, COPY_STAGE, batch.staged.bytes)
				timings.copy += performance.now() - started
				started = performance.now()
				const result = await client.query<typeof counts>(WRITE_STAGED, [
					listId,
					this.#state.user_id,
					this.#state.workspace_id,
				])
				counts.imported += result.rows[0]!.imported
				counts.invalid += result.rows[0]!.invalid
				counts.duplicates += result.rows[0]!.duplicates
				timings.insert += performance.now() - started
			}
			await importHooks.beforeCommit?.(listId, batch.number)
			// the list row is locked and processing: this update is certain to find it
			await client.query(
				`${checkpoint(listId, [
					batch.endBytes,
					batch.nextLine,
					batch.rows,
					counts.imported,
					counts.invalid,
					counts.duplicates,
				])}; commit`,
			)
		} catch (error) {
			await client.query('rollback').catch(() => {})
			throw error
		}
		this.#committedBytes = batch.endBytes
		await importHooks.afterCommit?.(listId, batch.number)
	}
}

function copyRows(client: pg.PoolClient, statement: string, rows: Buffer) {
	return new Promise<void>((resolve, reject) => {
		const stream = client.query(copyFrom(statement))
		stream.on('error', reject)
		stream.on('finish', () => resolve())
		stream.end(rows)
	})
}

async function finish(state: ImportState) {
	const row = await db
		.updateTable('processing_list as l')
		.from('csv_imports as i')
		.whereRef('i.list_id', '=', 'l.id')
		.where('l.id', '=', state.list_id)
		.where('l.status', '=', STATUS.processing)
		.set({
			status: sql`case when i.imported > 0 then ${sql.lit(STATUS.success)} else ${sql.lit(STATUS.fail)} end`,
			error: sql`case when i.imported > 0 then null
				when i.rows_done = 0 then 'The file has no rows.'
				else 'No row had a valid email address that was not already in the list.' end`,
			found: sql`i.imported`,
			progress: 100,
			finished_at: sql`now()`,
			updated_at: sql`now()`,
		})
		.returning(['l.status', 'l.found'])
		.executeTakeFirst()
	if (row) await removeImportFile(state.file_path)
	// a big list's marks for typed page numbers, so that no visitor waits for the first ones
	if (row?.status === STATUS.success && row.found > 2 * MARK_EVERY) {
		await requestPageMarks({ id: state.list_id, found: row.found }, 'added').catch((error) =>
			// asked for again by the first typed page that needs them
			logger.warn({ err: error, listId: state.list_id }, 'page marks not asked for'),
		)
	}
	logger.info(
		{ listId: state.list_id, status: row?.status, ms: mapValues(timings, Math.round) },
		'csv import finished',
	)
}

async function fail(state: ImportState, reason: string) {
	await db
		.updateTable('processing_list')
		.set({ status: STATUS.fail, error: reason, finished_at: sql`now()`, updated_at: sql`now()` })
		.where('id', '=', state.list_id)
		.where('status', 'in', [STATUS.pending, STATUS.processing])
		.execute()
	await removeImportFile(state.file_path)
	logger.warn({ listId: state.list_id, reason }, 'csv import failed')
}

/** Imports still pending or running while no job of theirs is queued or running. */
export async function unfinishedImports(quietSeconds: number) {
	const rows = await db
		.selectFrom('processing_list as l')
		.innerJoin('csv_imports as i', 'i.list_id', 'l.id')
		.select('l.id')
		.where('l.status', 'in', [STATUS.pending, STATUS.processing])
		.where(quietFor('l.updated_at', quietSeconds))
		.where(withoutLiveJob('csv-import', sql`jsonb_build_object('listId', l.id)`))
		.execute()
	return rows.map((r) => ({ listId: r.id }))
}

/**
 * The sweep's end of an import whose job pg-boss will not run again (decision 0062): under the
 * list's lock, and only while still no job of it is queued or running. The rows imported so far
 * stay (an import costs no credits); the file is removed as for any failed import.
 */
export async function settleEndedImport(listId: string) {
	const state = await loadState(listId)
	if (!state) return false
	const ended = await db.transaction().execute(async (trx) => {
		const locked = await trx
			.selectFrom('processing_list')
			.select('status')
			.where('id', '=', listId)
			.forUpdate()
			.executeTakeFirst()
		if (locked?.status !== STATUS.pending && locked?.status !== STATUS.processing) return false
		const job = await endedJob(trx, 'csv-import', { listId })
		if (!job) return false
		await trx
			.updateTable('processing_list')
			.set({
				status: STATUS.fail,
				error: `The import stopped. ${whyEnded(job)} The rows imported so far are kept; upload the file again for the rest.`,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', listId)
			.execute()
		return true
	})
	if (ended) await removeImportFile(state.file_path)
	return ended
}

function mapValues<T extends Record<string, number>>(object: T, map: (value: number) => number) {
	return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, map(v)])) as T
}
