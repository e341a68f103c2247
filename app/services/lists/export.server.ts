import { PassThrough, Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { stringify } from 'csv-stringify/sync'
import { sql, type RawBuilder } from 'kysely'
import { to as copyTo } from 'pg-copy-streams'
import { db, getPool } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { csvSafe, formulaStartsSql } from '../../utils/csv-safe.ts'
import { logger } from '../../utils/logger.server.ts'
import { findCompanyList, findLeadList } from './find-list.server.ts'
import { VERIFY_RANK } from './lead-order.server.ts'
import { searchCondition, statusCondition } from './leads-page.server.ts'
import { searchCondition as companySearch } from './companies-page.server.ts'
import { isStatusFilter, type StatusFilter } from '../verification/statuses.ts'

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
	return {
		fileName: csvFileName(list.name),
		stream: copyCsv(await leadsCsv([list.id], false), 'leads', list.id),
	}
}

/** The same for a company list (company_scraping_list and its companies). */
export async function streamCompanyListCsv(
	context: AccountContext | null,
	listId: unknown,
): Promise<CsvDownload> {
	const { list } = await findCompanyList(context, listId)
	const keys = await dataKeys('companies', list.id, [])
	const columns = [...companyColumns(), ...dataColumns(keys, COMPANY_COLUMNS)]
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
async function anyVerified(listIds: string[]) {
	const row = await db
		.selectFrom('leads')
		.select('id')
		.where(sql<boolean>`list_id = any(${listIds}::uuid[])`)
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

async function dataKeys(table: 'leads' | 'companies', listId: string | string[], first: string[]) {
	const listIds = typeof listId === 'string' ? [listId] : listId
	const { rows } = await sql<{ key: string }>`
		select distinct k as key
		from ${sql.table(table)} t, jsonb_object_keys(t.data) k
		where t.list_id = any(${listIds}::uuid[]) and t.data <> '{}'::jsonb
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
	listId: string | string[],
	orderBy: 'id' | 'line' = 'id',
	/** a further condition, already SQL text with its values inlined (see inlined) */
	where?: string,
) {
	// COPY takes no parameters: the list ids are checked uuids and the keys are quoted literals.
	const listIds = typeof listId === 'string' ? [listId] : listId
	if (listIds.length === 0 || !listIds.every((id) => /^[0-9a-f-]{36}$/i.test(id)))
		throw new Error('not a list id')
	const starts = formulaStartsSql()
	const select = columns
		.map(
			(c) =>
				`case when left((${c.expression}), 1) = any(${starts}) then '''' || (${c.expression}) else (${c.expression}) end`,
		)
		.join(',\n\t')
	const also = where ? ` and (${where})` : ''
	// leads: in the list's own index order (see ofList in leads-page.server.ts), never along
	// leads_pkey through every other list's leads
	const rows =
		table === 'leads' || listIds.length > 1
			? `where list_id = any('{${listIds.join(',')}}'::uuid[])${also} order by list_id, ${orderBy}`
			: `where list_id = '${listIds[0]}'${also} order by ${orderBy}`
	const query = `copy (select ${select} from ${table} ${rows}) to stdout with (format csv)`
	const header = `\uFEFF${stringify([columns.map((c) => csvSafe(c.header))], { record_delimiter: '\n' })}`
	return streamCopy(query, header)
}

/**
 * A condition built with Kysely as SQL text with its values inlined as quoted literals, for
 * COPY (which takes no parameters). Only for conditions whose SQL has no `$` of its own.
 */
export function inlined(condition: RawBuilder<boolean>) {
	const compiled = condition.compile(db)
	return compiled.sql.replace(/\$(\d+)/g, (_, n: string) => {
		const value = compiled.parameters[Number(n) - 1]
		if (typeof value === 'number' && Number.isFinite(value)) return String(value)
		if (typeof value === 'string') return quoteLiteral(value)
		throw new Error('only strings and numbers can be inlined')
	})
}

/**
 * The chosen leads of one list as CSV (the list page's bulk export): the ticked ids, or every
 * lead matching the page's search and status filter; streamed like the whole list's download.
 */
export async function streamLeadSelectionCsv(
	context: AccountContext | null,
	listId: unknown,
	selection: { ids: string[] } | { filter: Record<string, string> },
): Promise<CsvDownload> {
	const { list } = await findLeadList(context, listId)
	let where: string
	if ('ids' in selection) {
		const ids = selection.ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id))
		where = ids.length ? `id = any('{${ids.join(',')}}'::uuid[])` : 'false'
	} else {
		const parts = [sql<boolean>`true`]
		if (selection.filter.q) parts.push(searchCondition(selection.filter.q))
		if (isStatusFilter(selection.filter.status ?? null))
			parts.push(statusCondition(selection.filter.status as StatusFilter))
		where = inlined(sql<boolean>`${sql.join(parts, sql` and `)}`)
	}
	return {
		fileName: csvFileName(`${list.name}-selected`),
		stream: copyCsv(await leadsCsv([list.id], false), 'leads', list.id, 'id', where),
	}
}

/**
 * The chosen companies of one company list as CSV (its page's bulk export, decision 0101): the
 * ticked ids (another account's match nothing: the rows are this list's), or every company
 * matching the page's search; streamed like the whole list's download.
 */
export async function streamCompanySelectionCsv(
	context: AccountContext | null,
	listId: unknown,
	selection: { ids: string[] } | { filter: Record<string, string> },
): Promise<CsvDownload> {
	const { list } = await findCompanyList(context, listId)
	let where: string
	if ('ids' in selection) {
		const ids = selection.ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id))
		where = ids.length ? `id = any('{${ids.join(',')}}'::uuid[])` : 'false'
	} else {
		where = selection.filter.q ? inlined(companySearch(selection.filter.q)) : 'true'
	}
	const keys = await dataKeys('companies', list.id, [])
	return {
		fileName: csvFileName(`${list.name}-selected`),
		stream: copyCsv(
			[...companyColumns(), ...dataColumns(keys, COMPANY_COLUMNS)],
			'companies',
			list.id,
			'id',
			where,
		),
	}
}

/**
 * Several lists of one kind as one CSV (the lists page's bulk export), a `list` column first
 * naming each row's list: one file an agency can filter or load as it is. The caller gives
 * lists it has checked are the account's.
 */
export async function streamListsCsv(
	kind: 'leads' | 'companies',
	listIds: string[],
): Promise<CsvDownload> {
	const lists = kind === 'leads' ? 'processing_list' : 'company_scraping_list'
	const listColumn: CsvColumn = {
		header: 'list',
		expression: `(select p.name from ${lists} p where p.id = list_id)`,
	}
	const columns =
		kind === 'leads'
			? await leadsCsv(listIds, true)
			: [
					...companyColumns(),
					...dataColumns(await dataKeys('companies', listIds, []), COMPANY_COLUMNS),
				]
	return {
		fileName: `${kind === 'leads' ? 'lead' : 'company'}-lists-${new Date().toISOString().slice(0, 10)}.csv`,
		stream: copyCsv([listColumn, ...columns], kind, listIds),
	}
}

/** The columns of a lead export of these lists (standard, our check if any, their data keys). */
async function leadsCsv(listIds: string[], several: boolean): Promise<CsvColumn[]> {
	const [keys, verified] = await Promise.all([
		(several ? Promise.resolve([]) : uploadColumnOrder(listIds[0]!)).then((order) =>
			dataKeys('leads', listIds, order),
		),
		anyVerified(listIds),
	])
	return [
		...LEAD_COLUMNS.map((c) => ({ header: c, expression: quoteIdent(c) })),
		...(verified ? VERIFY_COLUMNS : []),
		...dataColumns(keys, [...LEAD_COLUMNS, ...VERIFY_COLUMNS.map((c) => c.header)]),
	]
}

function companyColumns(): CsvColumn[] {
	return COMPANY_COLUMNS.map((c) => ({
		header: c,
		expression: c === 'employees' ? 'employees::text' : quoteIdent(c),
	}))
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
