import { PassThrough, Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { stringify } from 'csv-stringify/sync'
import { sql } from 'kysely'
import { to as copyTo } from 'pg-copy-streams'
import { db, getPool } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { csvSafe, formulaStartsSql } from '../../utils/csv-safe.ts'
import { logger } from '../../utils/logger.server.ts'
import { findCompanyList, findLeadList } from './find-list.server.ts'
import { ofList, VERIFY_RANK } from './lead-order.server.ts'

export const LEAD_COLUMNS = [
	'email',
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

/**
 * Our own email check (decision 0086), beside the imported `email_status`: its status, the role
 * flag, the provider and when (UTC), once any lead of the list was verified (a list never
 * verified exports as it always did).
 */
const VERIFY_COLUMNS: CsvColumn[] = [
	{ header: 'verification_status', expression: 'verify_status' },
	{
		header: 'verification_role',
		expression: "case when verify_role then 'yes' when verify_role is false then 'no' end",
	},
	{ header: 'verification_provider', expression: 'verify_provider' },
	{
		header: 'verified_at',
		expression: `to_char(verified_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
	},
]

export const COMPANY_COLUMNS = [
	'name',
	'domain',
	'industry',
	'employees',
	'location',
	'linkedin_url',
	'description',
] as const

/** At most this many keys of `data` become columns (PostgreSQL allows 1,664 per select). */
const MAX_DATA_COLUMNS = 1000

export type CsvDownload = {
	fileName: string
	/** UTF-8 CSV with a byte order mark (so spreadsheets read it as UTF-8) */
	stream: ReadableStream<Uint8Array>
}

/**
 * Every lead of the list as CSV, streamed from PostgreSQL (COPY TO STDOUT: no row is held
 * in memory here): the standard columns, then every key found in leads.data (enrichment
 * outputs, extra columns of an upload). Another account's list is a 404.
 */
export async function streamListCsv(
	context: AccountContext | null,
	listId: unknown,
): Promise<CsvDownload> {
	const { list } = await findLeadList(context, listId)
	const [keys, verified] = await Promise.all([
		uploadColumnOrder(list.id).then((order) => dataKeys('leads', list.id, order)),
		anyVerified(list.id),
	])
	const columns = [
		...LEAD_COLUMNS.map((c) => ({ header: c, expression: quoteIdent(c) })),
		...(verified ? VERIFY_COLUMNS : []),
		...dataColumns(keys, [...LEAD_COLUMNS, ...VERIFY_COLUMNS.map((c) => c.header)]),
	]
	return {
		fileName: csvFileName(list.name),
		stream: copyCsv(columns, 'leads', list.id),
	}
}

/** The same for a company list (company_scraping_list and its companies). */
export async function streamCompanyListCsv(
	context: AccountContext | null,
	listId: unknown,
): Promise<CsvDownload> {
	const { list } = await findCompanyList(context, listId)
	const keys = await dataKeys('companies', list.id, [])
	const columns = [
		...COMPANY_COLUMNS.map((c) => ({
			header: c,
			expression: c === 'employees' ? 'employees::text' : quoteIdent(c),
		})),
		...dataColumns(keys, COMPANY_COLUMNS),
	]
	return {
		fileName: csvFileName(list.name),
		stream: copyCsv(columns, 'companies', list.id),
	}
}

export type CsvColumn = { header: string; expression: string }

function dataColumns(keys: string[], standard: readonly string[]): CsvColumn[] {
	return keys.map((key) => ({
		header: standard.includes(key) ? `data.${key}` : key,
		expression: `data ->> ${quoteLiteral(key)}`,
	}))
}

/** Whether any lead of the list has our own check (the status index's first entries). */
async function anyVerified(listId: string) {
	const row = await db
		.selectFrom('leads')
		.select('id')
		.where(ofList(listId))
		.where(sql<boolean>`${VERIFY_RANK} < '7'`)
		.limit(1)
		.executeTakeFirst()
	return Boolean(row)
}

/** The upload's extra columns in file order (the rest of the keys follow alphabetically). */
async function uploadColumnOrder(listId: string) {
	const row = await db
		.selectFrom('csv_imports')
		.select('mapping')
		.where('list_id', '=', listId)
		.executeTakeFirst()
	const extra = (row?.mapping as { extra?: [number, string][] } | undefined)?.extra ?? []
	return extra.map(([, name]) => name)
}

async function dataKeys(table: 'leads' | 'companies', listId: string, first: string[]) {
	const { rows } = await sql<{ key: string }>`
		select distinct k as key
		from ${sql.table(table)} t, jsonb_object_keys(t.data) k
		where t.list_id = ${listId} and t.data <> '{}'::jsonb
		order by k
		limit ${MAX_DATA_COLUMNS}
	`.execute(db)
	const found = new Set(rows.map((r) => r.key))
	const ordered = first.filter((k) => found.has(k))
	return [...ordered, ...rows.map((r) => r.key).filter((k) => !ordered.includes(k))]
}

/**
 * CSV of `columns` for the rows of one list in `table`, by COPY (csv format: PostgreSQL
 * quotes as RFC 4180 says), every cell made formula-safe in SQL.
 */
export function copyCsv(
	columns: CsvColumn[],
	table: 'leads' | 'companies' | 'csv_import_errors',
	listId: string,
	orderBy: 'id' | 'line' = 'id',
) {
	// COPY takes no parameters: the list id is a checked uuid and the keys are quoted literals.
	if (!/^[0-9a-f-]{36}$/i.test(listId)) throw new Error('not a list id')
	const starts = formulaStartsSql()
	const select = columns
		.map(
			(c) =>
				`case when left((${c.expression}), 1) = any(${starts}) then '''' || (${c.expression}) else (${c.expression}) end`,
		)
		.join(',\n\t')
	// leads: in the list's own index order (see ofList in leads-page.server.ts), never along
	// leads_pkey through every other list's leads
	const rows =
		table === 'leads'
			? `where list_id = any('{${listId}}'::uuid[]) order by list_id, ${orderBy}`
			: `where list_id = '${listId}' order by ${orderBy}`
	const query = `copy (select ${select} from ${table} ${rows}) to stdout with (format csv)`
	const header = `\uFEFF${stringify([columns.map((c) => csvSafe(c.header))], { record_delimiter: '\n' })}`
	return streamCopy(query, header)
}

/** Runs COPY ... TO STDOUT on its own connection and streams it out after `prefix`. */
function streamCopy(query: string, prefix: string): ReadableStream<Uint8Array> {
	const out = new PassThrough()
	let done = false
	void (async () => {
		const client = await getPool().connect()
		let released = false
		const release = (destroy: boolean) => {
			if (released) return
			released = true
			client.release(destroy ? true : undefined)
		}
		try {
			if (out.destroyed) {
				release(false)
				return
			}
			out.write(prefix)
			const copy = client.query(copyTo(query))
			out.on('close', () => {
				// the browser went away: the connection is mid-COPY, so it is not reused
				if (!done) {
					copy.destroy()
					release(true)
				}
			})
			copy.on('error', (error) => {
				logger.error({ err: error }, 'CSV export failed')
				release(true)
				out.destroy(error)
			})
			copy.on('end', () => {
				done = true
				release(false)
			})
			copy.pipe(out)
		} catch (error) {
			release(true)
			out.destroy(error as Error)
		}
	})().catch((error: unknown) => out.destroy(error as Error))
	return Readable.toWeb(
		out,
	) as unknown as WebReadableStream<Uint8Array> as ReadableStream<Uint8Array>
}

function quoteIdent(name: string) {
	return `"${name.replaceAll('"', '""')}"`
}

function quoteLiteral(value: string) {
	return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** A file name that is safe on every system: letters, digits, dot, dash, underscore. */
export function csvFileName(name: string) {
	const base = name
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/\.csv$/i, '')
		.replace(/[^A-Za-z0-9._-]+/g, '-')
		.replace(/^[-.]+|[-.]+$/g, '')
		.slice(0, 100)
	return `${base || 'list'}.csv`
}

/** Content-Disposition for a download: the safe name, and the real one for browsers that read it. */
export function attachmentHeader(fileName: string, displayName?: string) {
	const utf8 = encodeURIComponent(displayName ?? fileName).replace(
		/['()*]/g,
		(c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
	)
	return `attachment; filename="${fileName}"; filename*=UTF-8''${utf8}`
}

/** The HTTP response for a CSV download (streamed, never cached). */
export function csvResponse(download: CsvDownload) {
	return new Response(download.stream, {
		headers: {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Disposition': attachmentHeader(download.fileName),
			'Cache-Control': 'private, no-store',
			'X-Content-Type-Options': 'nosniff',
		},
	})
}
