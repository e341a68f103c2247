import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import { formatCents } from '../../utils/money.ts'
import { CREDIT_REASON_LABELS } from './credits.server.ts'

// The credit history an owner reads (issue 34 point 5, decision 0083): each line with what it
// was for, named and linked, read with its subject in one statement, a page at a time by
// keyset (newest first). And what a list or a run cost: the sum of its lines, refunds netted.

export const CREDIT_HISTORY_PAGE_SIZE = 25

/** What a ledger line was for, as the user knows it, and where to see it (while it exists). */
export type CreditSubjectView = { label: string; href: string | null }

export type CreditHistoryLine = {
	id: string
	/** ISO time, for <time> */
	at: string
	delta: number
	balanceAfter: number
	reason: string
	subject: CreditSubjectView | null
	/** an admin's note on a grant or a deduction */
	note: string | null
}

export type CreditHistoryPage = {
	lines: CreditHistoryLine[]
	page: number
	firstIndex: number
	/** the query strings of the newer and older pages, or null at either end */
	newer: string | null
	older: string | null
}

type LineRow = {
	id: string
	created_at: Date
	delta: number
	balance_after: number
	reason: string
	reference: string | null
	note: string | null
	list_id: string | null
	company_list_id: string | null
	enrichment_run_id: string | null
	verification_run_id: string | null
	checkout_session_id: string | null
	subscription_id: string | null
	list_name: string | null
	company_list_name: string | null
	run_name: string | null
	run_list_id: string | null
	run_company_list_id: string | null
	checkout_total_cents: number | null
}

const quoted = (name: string) => `“${name}”`

// A retried job holds its credits again under `<kind>:<id>:<attempt>`.
function retryOf(reference: string | null) {
	const attempt = Number(
		/^(?:enrich|enrich-verify|lead-scrape|company-scrape):[^:]+:(\d+)$/.exec(
			reference ?? '',
		)?.[1] ?? 1,
	)
	return attempt > 1 ? ` (retry ${attempt - 1})` : ''
}

/** The line's subject in words, with the link to it while it still exists. */
export function subjectOf(row: LineRow): CreditSubjectView | null {
	const retry = retryOf(row.reference)
	if (row.enrichment_run_id) {
		const listId = row.run_list_id ?? row.run_company_list_id
		if (!row.run_name || !listId) return { label: 'Enrichment run (since deleted)', href: null }
		const listName = row.list_name ?? row.company_list_name
		const base = row.run_list_id ? `/lists/${listId}/enrich` : `/company-lists/${listId}/enrich`
		// a chain's Verify email steps paid with credits hold apart (decision 0099)
		const what = row.reference?.startsWith('enrich-verify:')
			? 'Email verification in enrichment'
			: 'Enrichment'
		return {
			label: `${what} ${quoted(row.run_name)}${listName ? ` on ${listName}` : ''}${retry}`,
			href: `${base}?run=${row.enrichment_run_id}`,
		}
	}
	if (row.verification_run_id)
		// charged for its definitive answers only (valid, invalid, disposable)
		return row.list_name && row.list_id
			? {
					label: `Email verification of ${quoted(row.list_name)}`,
					href: `/lists/${row.list_id}/verify`,
				}
			: { label: 'Email verification (list since deleted)', href: null }
	if (row.list_id)
		return row.list_name
			? { label: `Lead search ${quoted(row.list_name)}${retry}`, href: `/lists/${row.list_id}` }
			: { label: 'Lead search (list since deleted)', href: null }
	if (row.company_list_id)
		return row.company_list_name
			? {
					label: `Company search ${quoted(row.company_list_name)}${retry}`,
					href: `/company-lists/${row.company_list_id}`,
				}
			: { label: 'Company search (list since deleted)', href: null }
	if (row.checkout_session_id)
		return {
			label:
				row.checkout_total_cents !== null
					? `Credit pack bought for ${formatCents(row.checkout_total_cents)}`
					: 'Credit pack bought',
			href: null,
		}
	if (row.subscription_id) return { label: 'Your plan’s monthly credits', href: '/subscription' }
	return null
}

/** The lines of an account with their subjects' names: one statement, scoped to the account. */
function linesQuery(db: Kysely<DB>, accountId: string) {
	return db
		.selectFrom('credits as c')
		.leftJoin('enrichment_runs as r', (join) =>
			join.onRef('r.id', '=', 'c.enrichment_run_id').onRef('r.user_id', '=', 'c.user_id'),
		)
		.leftJoin('processing_list as l', (join) =>
			join
				.on((eb) => eb('l.id', '=', eb.fn.coalesce('c.list_id', 'r.list_id')))
				.onRef('l.user_id', '=', 'c.user_id'),
		)
		.leftJoin('company_scraping_list as cl', (join) =>
			join
				.on((eb) => eb('cl.id', '=', eb.fn.coalesce('c.company_list_id', 'r.company_list_id')))
				.onRef('cl.user_id', '=', 'c.user_id'),
		)
		.leftJoin('checkout_sessions as s', (join) =>
			join.onRef('s.id', '=', 'c.checkout_session_id').onRef('s.user_id', '=', 'c.user_id'),
		)
		.select([
			'c.id',
			'c.created_at',
			'c.delta',
			'c.balance_after',
			'c.reason',
			'c.reference',
			'c.note',
			'c.list_id',
			'c.company_list_id',
			'c.enrichment_run_id',
			'c.verification_run_id',
			'c.checkout_session_id',
			'c.subscription_id',
			'l.name as list_name',
			'cl.name as company_list_name',
			'r.name as run_name',
			'r.list_id as run_list_id',
			'r.company_list_id as run_company_list_id',
			's.total_cents as checkout_total_cents',
		])
		.where('c.user_id', '=', accountId)
}

function toLine(row: LineRow): CreditHistoryLine {
	return {
		id: row.id,
		at: row.created_at.toISOString(),
		delta: row.delta,
		balanceAfter: row.balance_after,
		reason: CREDIT_REASON_LABELS[row.reason] ?? row.reason,
		subject: subjectOf(row),
		note: row.note,
	}
}

/**
 * One page of the account's credit history, newest first. `before` (an older page) and
 * `after` (a newer one) are the id of the line the page starts past; a line id of another
 * account, or not an id, reads the first page.
 */
export async function getCreditHistory(
	accountId: string,
	search: URLSearchParams,
	options: { pageSize?: number } = {},
	db: Kysely<DB> = defaultDb,
): Promise<CreditHistoryPage> {
	const size = options.pageSize ?? CREDIT_HISTORY_PAGE_SIZE
	const before = search.get('before')
	const after = search.get('after')
	const cursor = isUuid(before) ? before : isUuid(after) ? after : null
	const newerFirst = !(cursor && cursor === after)
	let query = linesQuery(db, accountId)
	if (cursor) {
		// the line the page starts past, by its place in the order (created_at, id)
		// (another account's line, or none: the first page)
		const place = sql`(select created_at, id from credits where id = ${cursor} and user_id = ${accountId})`
		query = query.where(
			sql<boolean>`coalesce((c.created_at, c.id) ${sql.raw(newerFirst ? '<' : '>')} ${place}, true)`,
		)
	}
	const fetched = (await query
		.orderBy('c.created_at', newerFirst ? 'desc' : 'asc')
		.orderBy('c.id', newerFirst ? 'desc' : 'asc')
		.limit(size + 1)
		.execute()) as LineRow[]
	const more = fetched.length > size
	const rows = fetched.slice(0, size)
	if (!newerFirst) rows.reverse()
	const requested = Number(search.get('page'))
	const page = cursor && Number.isSafeInteger(requested) && requested > 1 ? requested : 1
	const hasNewer = cursor ? (newerFirst ? true : more) : false
	const hasOlder = newerFirst ? more : true
	const first = rows[0]
	const last = rows.at(-1)
	return {
		lines: rows.map(toLine),
		page,
		firstIndex: (page - 1) * size + 1,
		newer:
			hasNewer && first
				? page <= 2
					? ''
					: `?${new URLSearchParams({ page: String(page - 1), after: first.id })}`
				: null,
		older:
			hasOlder && last
				? `?${new URLSearchParams({ page: String(page + 1), before: last.id })}`
				: null,
	}
}

/**
 * What each of these enrichment runs cost the account, every attempt, net of refunds: one
 * grouped sum (for a page that lists runs). Another account's lines are never counted.
 */
export async function runCosts(
	accountId: string,
	runIds: readonly string[],
	db: Kysely<DB> = defaultDb,
): Promise<Map<string, number>> {
	const ids = runIds.filter((id) => isUuid(id))
	if (ids.length === 0) return new Map()
	const rows = await db
		.selectFrom('credits')
		.select(['enrichment_run_id', sql<number>`-sum(delta)::bigint`.as('credits')])
		.where('user_id', '=', accountId)
		.where('enrichment_run_id', 'in', ids)
		.groupBy('enrichment_run_id')
		.execute()
	return new Map(rows.map((r) => [r.enrichment_run_id!, Number(r.credits)]))
}

export type ListCostBreakdown = {
	/** everything the list cost: its search and its runs */
	total: number
	/** its search (lead or company scrape), retries included */
	search: number
	/** its email verifications */
	verification: number
	runs: { id: string; name: string; credits: number; href: string }[]
}

/**
 * A list's cost for its page: the total, its search's share and each run's, from one grouped
 * statement over the list's ledger lines (each run's name joined in).
 */
export async function listCostBreakdown(
	accountId: string,
	kind: 'leads' | 'companies',
	listId: string,
	db: Kysely<DB> = defaultDb,
): Promise<ListCostBreakdown> {
	if (!isUuid(listId)) return { total: 0, search: 0, verification: 0, runs: [] }
	const column = kind === 'leads' ? 'c.list_id' : 'c.company_list_id'
	const rows = await db
		.selectFrom('credits as c')
		.leftJoin('enrichment_runs as r', (join) =>
			join.onRef('r.id', '=', 'c.enrichment_run_id').onRef('r.user_id', '=', 'c.user_id'),
		)
		.select([
			'c.enrichment_run_id',
			sql<boolean>`c.verification_run_id is not null`.as('verification'),
			sql<string | null>`min(r.name)`.as('run_name'),
			sql<Date>`min(c.created_at)`.as('first_at'),
			sql<number>`-sum(c.delta)::bigint`.as('credits'),
		])
		.where('c.user_id', '=', accountId)
		.where(column, '=', listId)
		.groupBy(['c.enrichment_run_id', sql`c.verification_run_id is not null`])
		.execute()
	const enrich = kind === 'leads' ? `/lists/${listId}/enrich` : `/company-lists/${listId}/enrich`
	const runs = rows
		.filter((r) => r.enrichment_run_id)
		.sort((a, b) => Number(a.first_at) - Number(b.first_at))
		.map((r) => ({
			id: r.enrichment_run_id!,
			name: r.run_name ?? 'Deleted run',
			credits: Number(r.credits),
			href: `${enrich}?run=${r.enrichment_run_id}`,
		}))
	const search = Number(rows.find((r) => !r.enrichment_run_id && !r.verification)?.credits ?? 0)
	const verification = Number(rows.find((r) => r.verification)?.credits ?? 0)
	return {
		total: search + verification + runs.reduce((sum, r) => sum + r.credits, 0),
		search,
		verification,
		runs,
	}
}
