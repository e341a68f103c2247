import { hash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { notFound } from '../../utils/http-errors.server.ts'
import type { TableSort } from '../../utils/table-sort.ts'
import { domainAccount } from '../domains/access.server.ts'
import { findDomain, unicodeName, visibleDomains } from '../domains/domains.server.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'
import { recordEvent } from '../webhooks/record.server.ts'
import { checkDomains, type InboxProvider } from './checks.server.ts'
import { createDnsClient, type DnsClient } from './dns.server.ts'
import { healthOrder } from './order.server.ts'
import { STATUS_RANK, type Grade, type HealthReport, type HealthStatus } from './report.ts'

/** DNS queries in flight at once in one run (one job or one "check now"). */
export const HEALTH_DNS_CONCURRENCY = 64
/** Domains per domain-health job. */
export const HEALTH_BATCH = 100

export function healthDnsClient(concurrency = HEALTH_DNS_CONCURRENCY): DnsClient {
	return createDnsClient({ servers: getConfig().DNS_SERVERS, concurrency })
}

/** The provider most of a domain's live inboxes are at (its SPF include and DKIM selector). */
async function providers(db: Kysely<DB>, domainIds: string[]) {
	const rows = await db
		.selectFrom('inboxes')
		.select(['domain_id', 'provider'])
		.select((eb) => eb.fn.countAll<string>().as('n'))
		.where(sql<boolean>`domain_id = any(${domainIds}::uuid[])`)
		.where('ended_at', 'is', null)
		.groupBy(['domain_id', 'provider'])
		.orderBy(sql`count(*)`, 'desc')
		.execute()
	const by = new Map<string, InboxProvider>()
	for (const row of rows)
		if (row.domain_id && !by.has(row.domain_id) && ['google', 'microsoft'].includes(row.provider))
			by.set(row.domain_id, row.provider as InboxProvider)
	return by
}

/**
 * Reports stored per transaction, at most, while the rest of a run is still being checked. A
 * write starts as soon as the last one has ended and HEALTH_STORE_MIN reports wait (group
 * commit): what arrives meanwhile goes in the next, so the run's last write, which nothing
 * overlaps, holds only the reports of the last moments instead of a whole batch.
 */
export const HEALTH_STORE_BATCH = 250
export const HEALTH_STORE_MIN = 25

type CheckedRow = { id: string; name: string; user_id: string; workspace_id: string | null }

/**
 * The domain-health job's work: checks the domains (a pool of them at once, the DNS client
 * bounding the queries in flight) and stores their reports as they come in, HEALTH_STORE_BATCH
 * to a transaction (decision 0100: one write per batch, overlapping the lookups still running,
 * instead of a transaction of four statements per domain after them all).
 */
export async function runHealthChecks(
	domainIds: string[],
	options: { db?: Kysely<DB>; dns?: DnsClient; pool?: number; storeMin?: number } = {},
) {
	const db = options.db ?? defaultDb
	if (!domainIds.length) return []
	const dns = options.dns ?? healthDnsClient()
	const [rows, provider] = await Promise.all([
		db
			.selectFrom('domains')
			.leftJoin('domain_health as h', 'h.domain_id', 'domains.id')
			.select(['domains.id', 'domains.name', 'domains.user_id', 'domains.workspace_id'])
			.select(['h.dkim_selector', 'h.report_hash'])
			// one array parameter, not a thousand (the job's batches and the bench's run)
			.where(sql<boolean>`domains.id = any(${domainIds}::uuid[])`)
			.execute(),
		providers(db, domainIds),
	])
	const storeMin = options.storeMin ?? HEALTH_STORE_MIN
	const batch: Checked[] = []
	// one write at a time, in order; a failed write fails the run (the job retries)
	let writing: Promise<void> | null = null
	let failure: { error: unknown } | null = null
	const flush = (least: number) => {
		if (writing || failure || batch.length < least) return
		writing = (async () => {
			while (batch.length >= least && batch.length)
				await storeReports(db, batch.splice(0, HEALTH_STORE_BATCH))
		})().then(
			() => {
				writing = null
			},
			(error: unknown) => {
				failure = { error }
				writing = null
			},
		)
	}
	// what the caller needs of each domain; the reports themselves go with their batch
	const checked: { id: string; name: string; status: HealthStatus }[] = []
	await checkDomains(
		dns,
		rows,
		(row) => ({ provider: provider.get(row.id), dkimSelector: row.dkim_selector }),
		{
			pool: options.pool,
			onReport: (domain, report) => {
				checked.push({ id: domain.id, name: domain.name, status: report.status })
				batch.push(stored(domain, report, domain.report_hash))
				flush(storeMin)
			},
		},
	)
	// the rest, whatever its size, once the write under way has ended
	while (writing || (batch.length && !failure)) {
		flush(1)
		await writing
	}
	if (failure) throw (failure as { error: unknown }).error
	return checked
}

const CONCLUSIVE = new Set<HealthStatus>(['healthy', 'warning', 'failing'])

/** A checked domain as it is stored: its report, the report's JSON and the JSON's hash. */
type Checked = {
	domain: CheckedRow
	report: HealthReport
	json: string
	reportHash: string
	/** its hash is the one stored when the run began: the report is not sent */
	unchanged: boolean
}

/**
 * The report as text and its hash. A re-check that finds what the last one found (most of a
 * daily run) sends the hash alone: the report is stored once, not once more a day for every
 * domain in the latest row and again in the history (decision 0105, evening addendum).
 */
function stored(domain: CheckedRow, report: HealthReport, storedHash: string | null): Checked {
	const json = JSON.stringify(report)
	const reportHash = hash('sha1', json, 'base64url')
	return { domain, report, json, reportHash, unchanged: reportHash === storedHash }
}

/**
 * Stores a batch of reports in one transaction: the latest report per domain, a history row
 * each, and for each domain whose status or grade differs from its last conclusive check (one
 * that could check everything it found wrong: "could not check" neither counts nor replaces it):
 * the `domain.health_changed` webhook event, and when it went from healthy (or only warned) to
 * failing, the owner's notification (in the app and by mail; its subject is the history row).
 *
 * The comparison is a compare-and-set (decision 0105): the last conclusive check lives on the
 * domain's `domain_health` row, and the upsert that replaces it returns the value it replaced
 * (`returning old.…`). The upsert locks the row, so two runs of one domain at once (a "check
 * now" during the daily job) are serialised there: the second sees the first's result, and one
 * change makes one event, one notification and one mail.
 */
async function storeReports(db: Kysely<DB>, checked: Checked[]) {
	if (!checked.length) return
	// one statement per batch, its rows as one JSON parameter, written in domain order (two
	// batches that share domains lock their rows in the same order: no deadlock); PostgreSQL
	// sorts them (a sort here cost the job more than the rest of its storing). Each report's
	// JSON, made once for its hash, goes in as it is.
	const inputRows = checked.map(({ domain, report, json, reportHash, unchanged }) => {
		const row = JSON.stringify({
			domain_id: domain.id,
			account_id: domain.user_id,
			status: report.status,
			status_rank: STATUS_RANK[report.status],
			score: report.score,
			grade: report.grade,
			report_hash: reportHash,
		})
		return `${row.slice(0, -1)},"report":${unchanged ? 'null' : json}}`
	})
	await db.transaction().execute(async (trx) => {
		const { rows } = await sql<{
			domain_id: string
			history_id: string
			last_status: string | null
			last_grade: string | null
			replaced_hash: string | null
		}>`
			with input as (
				select * from jsonb_to_recordset(${`[${inputRows.join(',')}]`}::jsonb) as x (
					domain_id uuid, account_id uuid, status text, status_rank smallint, score smallint,
					grade text, report_hash text, report jsonb)
			), latest as (
				insert into domain_health as d (domain_id, account_id, status, status_rank, score, grade,
					report, report_hash, pending, checked_at, updated_at, last_status, last_grade)
				select domain_id, account_id, status, status_rank, score, grade, report, report_hash, false,
					now(), now(), nullif(status, 'unknown'), case when status <> 'unknown' then grade end
				from input
				order by domain_id
				on conflict (domain_id) do update set status = excluded.status,
					status_rank = excluded.status_rank, score = excluded.score, grade = excluded.grade,
					-- no report: the one stored (its hash matched)
					report = coalesce(excluded.report, d.report), report_hash = excluded.report_hash,
					pending = false, checked_at = excluded.checked_at,
					updated_at = excluded.updated_at,
					last_status = coalesce(excluded.last_status, d.last_status),
					last_grade = case when excluded.last_status is null then d.last_grade
						else excluded.last_grade end
				returning d.domain_id, old.last_status, old.last_grade, old.report_hash
			), history as (
				insert into domain_health_history (domain_id, status, score, grade, report)
				select domain_id, status, score, grade, report from input
				returning id, domain_id
			)
			select history.domain_id, history.id::text as history_id, latest.last_status,
				latest.last_grade, latest.report_hash as replaced_hash
			from history join latest on latest.domain_id = history.domain_id`.execute(trx)
		const byId = new Map(checked.map((c) => [c.domain.id, c]))
		// sent as unchanged, but another run stored another report since this one read the hash
		// ("check now" during the daily job): this run's report after all, in its row and history
		const overtaken = rows.flatMap((row) => {
			const c = byId.get(row.domain_id)!
			return c.unchanged && row.replaced_hash !== c.reportHash
				? [`{"domain_id":"${row.domain_id}","history_id":${row.history_id},"report":${c.json}}`]
				: []
		})
		if (overtaken.length)
			await sql`
				with x as (
					select * from jsonb_to_recordset(${`[${overtaken.join(',')}]`}::jsonb)
						as x (domain_id uuid, history_id bigint, report jsonb)
				), history as (
					update domain_health_history h set report = x.report from x where h.id = x.history_id
				)
				update domain_health d set report = x.report from x where d.domain_id = x.domain_id`.execute(trx)
		for (const row of rows) {
			const { domain, report } = byId.get(row.domain_id)!
			if (!row.last_status || !CONCLUSIVE.has(report.status)) continue
			if (row.last_status === report.status && row.last_grade === report.grade) continue
			await healthChanged(
				trx,
				domain,
				report,
				{ status: row.last_status, grade: row.last_grade },
				row.history_id,
			)
		}
	})
}

async function healthChanged(
	trx: Kysely<DB>,
	row: CheckedRow,
	report: HealthReport,
	previous: { status: string; grade: string | null },
	historyId: string,
) {
	const failing = report.checks.filter((c) => c.status === 'fail')
	const link = `/domains/${row.id}/health`
	await recordEvent(trx, {
		accountId: row.user_id,
		workspaceId: row.workspace_id,
		type: 'domain.health_changed',
		data: {
			domain_id: row.id,
			name: row.name,
			workspace_id: row.workspace_id,
			previous_status: previous.status as 'healthy' | 'warning' | 'failing',
			status: report.status as 'healthy' | 'warning' | 'failing',
			previous_grade: previous.grade as Grade | null,
			grade: report.grade,
			score: report.score,
			failing_checks: failing.map((c) => c.key),
			link: new URL(link, getConfig().APP_URL).toString(),
		},
	})
	if (report.status === 'failing' && previous.status !== 'failing')
		await notifyJobEnd(trx, {
			kind: 'domain-health',
			id: historyId,
			accountId: row.user_id,
			workspaceId: row.workspace_id,
			title: `${unicodeName(row.name)} is failing its health checks`,
			body: `Failing: ${failing.map((c) => c.label).join(', ')}. The page shows the records to fix.`,
			link,
		})
}

/** Marks domains pending and queues their checks in batches, in the caller's transaction. */
export async function queueHealthChecks(trx: Kysely<DB>, rows: { id: string; user_id: string }[]) {
	for (let i = 0; i < rows.length; i += 1000) {
		const batch = rows.slice(i, i + 1000)
		await trx
			.insertInto('domain_health')
			.values(batch.map((r) => ({ domain_id: r.id, account_id: r.user_id, pending: true })))
			.onConflict((oc) => oc.column('domain_id').doUpdateSet({ pending: true }))
			.execute()
	}
	for (let i = 0; i < rows.length; i += HEALTH_BATCH)
		await enqueue(
			'domain-health',
			{ domainIds: rows.slice(i, i + HEALTH_BATCH).map((r) => r.id) },
			{ db: trx },
		)
	return rows.length
}

/** The daily schedule: every domain of every account, in batches. */
export async function queueDailyHealthChecks(db: Kysely<DB> = defaultDb) {
	return db.transaction().execute(async (trx) => {
		const rows = await trx.selectFrom('domains').select(['id', 'user_id']).execute()
		return queueHealthChecks(trx, rows)
	})
}

/** "Check all now": the user's visible domains, through the job. */
export async function requestHealthChecks(
	account: AccountContext | null,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	return db.transaction().execute(async (trx) => {
		const rows = await trx
			.selectFrom('domains')
			.select(['id', 'user_id'])
			.where(visibleDomains(acting))
			.execute()
		return queueHealthChecks(trx, rows)
	})
}

/** "Check now" on one domain: at once, so its owner sees the answer on the next page. */
export async function checkHealthNow(
	account: AccountContext | null,
	domainId: string,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	const domain = await findDomain(acting, domainId, db)
	const [result] = await runHealthChecks([domain.id], { db })
	return result!
}

/** Records the DKIM selector the owner's mail provider gave (empty: the provider's default). */
export async function setDkimSelector(
	account: AccountContext | null,
	domainId: string,
	selector: string | null,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'change')
	const domain = await findDomain(acting, domainId, db)
	await db
		.insertInto('domain_health')
		.values({ domain_id: domain.id, account_id: domain.user_id, dkim_selector: selector })
		.onConflict((oc) => oc.column('domain_id').doUpdateSet({ dkim_selector: selector }))
		.execute()
	return domain
}

export type DomainHealthView = {
	id: string
	name: string
	display: string
	status: HealthStatus | null
	score: number | null
	grade: string | null
	report: HealthReport | null
	pending: boolean
	checkedAt: string | null
	dkimSelector: string | null
}

function view(row: {
	id: string
	name: string
	status: string | null
	score: number | null
	grade: string | null
	report: unknown
	pending: boolean | null
	checked_at: Date | string | null
	dkim_selector: string | null
}): DomainHealthView {
	return {
		id: row.id,
		name: row.name,
		display: unicodeName(row.name),
		status: row.status as HealthStatus | null,
		score: row.score,
		grade: row.grade,
		report: row.report as HealthReport | null,
		pending: Boolean(row.pending),
		checkedAt: row.checked_at ? new Date(row.checked_at).toISOString() : null,
		dkimSelector: row.dkim_selector,
	}
}

function healthQuery(db: Kysely<DB>) {
	return db
		.selectFrom('domains')
		.leftJoin('domain_health as h', 'h.domain_id', 'domains.id')
		.select(['domains.id', 'domains.name'])
		.select(['h.status', 'h.score', 'h.grade', 'h.report', 'h.pending', 'h.checked_at'])
		.select('h.dkim_selector')
}

/** The health of some of the user's domains (the /domains table's grade column). */
export async function healthOf(
	account: AccountContext | null,
	domainIds: string[],
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	if (!domainIds.length) return new Map<string, DomainHealthView>()
	const rows = await healthQuery(db)
		.where(visibleDomains(acting))
		.where('domains.id', 'in', domainIds)
		.execute()
	return new Map(rows.map((r) => [r.id, view(r)]))
}

/** The whole-account view's orders: by grade (ascending: the worst first), name, last check. */
export const HEALTH_SORTS = ['grade', 'name', 'checked'] as const
export type HealthSort = TableSort<(typeof HEALTH_SORTS)[number]>

/**
 * The whole account's domains, by default the worst first (failing, warning, could not check,
 * healthy, never checked last).
 */
export async function accountHealth(
	account: AccountContext | null,
	options: { limit: number; offset: number; sort?: HealthSort },
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	const { sort, dir } = options.sort ?? { sort: 'grade', dir: 'asc' }
	const order =
		sort === 'grade'
			? healthOrder(dir)
			: sort === 'checked'
				? [sql`h.checked_at ${sql.raw(dir)} nulls last`]
				: []
	const [rows, counts] = await Promise.all([
		healthQuery(db)
			.where(visibleDomains(acting))
			.$call((q) => order.reduce((sorted, by) => sorted.orderBy(by), q))
			.orderBy('domains.name', sort === 'name' ? dir : 'asc')
			.limit(options.limit)
			.offset(options.offset)
			.execute(),
		db
			.selectFrom('domains')
			.leftJoin('domain_health as h', 'h.domain_id', 'domains.id')
			.select(sql<string>`coalesce(h.status, 'unchecked')`.as('status'))
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.where(visibleDomains(acting))
			.groupBy(sql`coalesce(h.status, 'unchecked')`)
			.execute(),
	])
	return {
		domains: rows.map(view),
		counts: Object.fromEntries(counts.map((c) => [c.status, Number(c.n)])) as Partial<
			Record<HealthStatus | 'unchecked', number>
		>,
	}
}

/** One domain's health and its last checks (another account's domain is 404). */
export async function domainHealth(
	account: AccountContext | null,
	domainId: string,
	db: Kysely<DB> = defaultDb,
) {
	const acting = domainAccount(account, 'view')
	const domain = await findDomain(acting, domainId, db)
	const row = await healthQuery(db).where('domains.id', '=', domain.id).executeTakeFirst()
	if (!row) notFound('This domain')
	const history = await db
		.selectFrom('domain_health_history')
		.select(['id', 'status', 'grade', 'score', 'checked_at'])
		.where('domain_id', '=', domain.id)
		.orderBy('id', 'desc')
		.limit(10)
		.execute()
	return {
		...view(row),
		workspaceId: domain.workspace_id,
		history: history.map((h) => ({
			id: h.id,
			status: h.status as HealthStatus,
			grade: h.grade,
			score: h.score,
			checkedAt: new Date(h.checked_at).toISOString(),
		})),
	}
}
