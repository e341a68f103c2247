import { sql, type CompiledQuery, type RawBuilder } from 'kysely'
import { db as defaultDb, prepareStatement, type Database } from '../../../db/index.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { actingAccount, canUseWorkspace } from '../workspaces/access.server.ts'

export type DashboardJobKind =
	'lead-search' | 'csv-import' | 'company-search' | 'enrichment' | 'company-enrichment' | 'upload'

export type DashboardJob = {
	id: string
	kind: DashboardJobKind
	name: string
	/** 0 pending, 1 processing, 2 done, 3 failed (SPEC.md section 3) */
	status: number
	progress: number
	error: string | null
	/** where the job's result is: the list, the enrich page, the uploads page */
	href: string
	createdAt: string
}

export type DashboardList = {
	id: string
	kind: 'leads' | 'companies'
	name: string
	status: number
	found: number
	href: string
	createdAt: string
}

/** Credits spent on one day (UTC); held credits of a running job count until it settles. */
export type SpentDay = { day: string; credits: number }

export type Dashboard = {
	planName: string | null
	jobs: DashboardJob[]
	lists: DashboardList[]
	spent: SpentDay[]
}

export const DASHBOARD_JOBS = 8
export const DASHBOARD_LISTS = 5
export const SPENT_DAYS = 30

type Row = {
	plan_name: string | null
	jobs: (Omit<DashboardJob, 'href' | 'createdAt'> & { list_id: string; created_at: string })[]
	lists: (Omit<DashboardList, 'href' | 'createdAt'> & { created_at: string })[]
	spent: { day: string; credits: number }[]
}

/**
 * Everything the dashboard shows, in ONE statement (one round trip): the plan's name, the
 * running jobs and then the newest finished ones (lead and company searches, CSV imports,
 * enrichment runs, EmailBison uploads), the newest lead and company lists, and the credits
 * spent on each of the last 30 days. Jobs and lists are those of the current workspace (and,
 * for users who see every workspace, the unassigned ones), as on /scrape; the credits are
 * the account's. Each part reads a few rows through an index that starts with the account.
 */
export async function getDashboard(
	context: AccountContext | null,
	workspaceId: string | null,
	db: Database = defaultDb,
): Promise<Dashboard> {
	// a member whose access ended acts in no account: an empty dashboard, not an error page
	if (context && !context.accountId) {
		return { planName: null, jobs: [], lists: [], spent: fillDays([], new Date()) }
	}
	const account = actingAccount(context)
	const accountId = account.accountId
	// The current workspace when the user may use it, and the unassigned rows for those who
	// see every workspace; a member with neither sees nothing.
	const workspace =
		workspaceId !== null && canUseWorkspace(account, workspaceId) ? workspaceId : null
	const statement = dashboardStatement(db, {
		workspace: workspace !== null,
		unassigned: account.accessAllWorkspaces,
	})
	const { rows } = await db.executeQuery<Row>({
		...statement,
		parameters: statement.parameters.map((value) =>
			value === ACCOUNT
				? accountId
				: value === WORKSPACE
					? workspace
					: value === PLAN
						? account.activePlan
						: value,
		),
	})
	const row = rows[0]!
	return {
		planName: row.plan_name,
		jobs: row.jobs.map((j) => ({
			id: j.id,
			kind: j.kind,
			name: j.name,
			status: j.status,
			progress: j.progress,
			error: j.error,
			href: jobHref(j.kind, j.list_id),
			createdAt: j.created_at,
		})),
		lists: row.lists.map((l) => ({
			id: l.id,
			kind: l.kind,
			name: l.name,
			status: l.status,
			found: l.found,
			href: l.kind === 'leads' ? `/lists/${l.id}` : `/company-lists/${l.id}`,
			createdAt: l.created_at,
		})),
		spent: fillDays(row.spent, new Date()),
	}
}

// The statement's text depends only on which parts of the scope there are: it is built and
// compiled once per form, with markers where the account, workspace and plan go, and each call
// puts its own values in their place (building it took ~0.15 ms of every dashboard view).
const ACCOUNT = '\u0000dashboard:account'
const WORKSPACE = '\u0000dashboard:workspace'
const PLAN = '\u0000dashboard:plan'
const statements = new Map<string, CompiledQuery<Row>>()

function dashboardStatement(
	db: Database,
	scope: { workspace: boolean; unassigned: boolean },
): CompiledQuery<Row> {
	const key = `${scope.workspace}:${scope.unassigned}`
	const known = statements.get(key)
	if (known) return known
	// Each part of the scope is its own index range (user_id, workspace_id, created_at desc):
	// `workspace_id = $w` and `workspace_id is null` read apart stop after a few rows each, where
	// an `or` of the two reads every row of both and sorts them.
	const scopeParts = [
		...(scope.workspace
			? [(column: RawBuilder<unknown>) => sql<boolean>`${column} = ${WORKSPACE}`]
			: []),
		...(scope.unassigned ? [(column: RawBuilder<unknown>) => sql<boolean>`${column} is null`] : []),
	]
	const inScope = (alias: string) => {
		const column = sql.ref(`${alias}.workspace_id`) as RawBuilder<unknown>
		return sql<boolean>`(${sql.join(
			scopeParts.map((part) => part(column)),
			sql` or `,
		)})`
	}
	// Per kind, its running jobs (partial indexes `*_running_idx` of migration 2026-11-24T0220)
	// and its newest finished ones per part of the scope (the owner indexes), each at most
	// DASHBOARD_JOBS, so an account with thousands of lists reads a few rows, not all of them.
	const jobsOf = (table: string, alias: string, columns: RawBuilder<unknown>) => {
		const owner = sql`${sql.ref(`${alias}.user_id`)} = ${ACCOUNT}`
		const from = sql`from ${sql.table(table)} as ${sql.ref(alias)}`
		const status = sql.ref(`${alias}.status`)
		const created = sql.ref(`${alias}.created_at`)
		const column = sql.ref(`${alias}.workspace_id`) as RawBuilder<unknown>
		return [
			sql`(select ${columns} ${from} where ${owner} and ${status} < 2 and ${inScope(alias)}
				order by ${created} desc limit ${DASHBOARD_JOBS})`,
			...scopeParts.map(
				(part) => sql`(select ${columns} ${from}
					where ${owner} and ${part(column)} and ${status} >= 2
					order by ${created} desc limit ${DASHBOARD_JOBS})`,
			),
		]
	}
	const jobs = [
		...jobsOf(
			'processing_list',
			'p',
			sql`p.id, case when p.source_type = 'upload' then 'csv-import' else 'lead-search' end as kind,
				p.name, p.status, p.progress, p.error, p.id as list_id, p.created_at`,
		),
		...jobsOf(
			'company_scraping_list',
			'c',
			sql`c.id, 'company-search', c.name, c.status, c.progress, c.error, c.id, c.created_at`,
		),
		...jobsOf(
			'enrichment_runs',
			'e',
			// its finished rows are counted on the run as they are written (migration
			// 2026-11-25T0900), so no run's rows are read; in bigint, as `* 100` of an integer
			// overflows past 21 million rows
			sql`e.id, case when e.company_list_id is null then 'enrichment' else 'company-enrichment' end,
				e.name, e.status,
				case when e.status >= 2 then 100 when e.total = 0 then 0
					else least(100, (e.rows_done + e.rows_failed)::bigint * 100 / e.total)::int end,
				e.error, coalesce(e.list_id, e.company_list_id), e.created_at`,
		),
		...jobsOf(
			'emailbison_upload',
			'u',
			sql`u.id, 'upload', coalesce(nullif(u.campaign_name, ''), 'EmailBison upload'), u.status,
				case when u.status >= 2 then 100 when u.total = 0 then 0
					else least(100, u.sent::bigint * 100 / u.total)::int end,
				u.error, u.list_id, u.created_at`,
		),
	]
	const lists = scopeParts.flatMap((part) => [
		sql`(select p.id, 'leads' as kind, p.name, p.status, p.found, p.created_at
			from processing_list p
			where p.user_id = ${ACCOUNT} and ${part(sql.ref('p.workspace_id') as RawBuilder<unknown>)}
			order by p.created_at desc limit ${DASHBOARD_LISTS})`,
		sql`(select c.id, 'companies', c.name, c.status, c.found, c.created_at
			from company_scraping_list c
			where c.user_id = ${ACCOUNT} and ${part(sql.ref('c.workspace_id') as RawBuilder<unknown>)}
			order by c.created_at desc limit ${DASHBOARD_LISTS})`,
	])
	// nothing in scope (a member limited elsewhere): no job or list to read at all
	const jobsPart = scopeParts.length
		? sql`coalesce((
				select json_agg(j order by (j.status < 2) desc, j.created_at desc)
				from (
					select * from (${sql.join(jobs, sql` union all `)}) k
					order by (status < 2) desc, created_at desc
					limit ${DASHBOARD_JOBS}
				) j
			), '[]')`
		: sql`'[]'::json`
	const listsPart = scopeParts.length
		? sql`coalesce((
				select json_agg(l order by l.created_at desc)
				from (
					select * from (${sql.join(lists, sql` union all `)}) k
					order by created_at desc
					limit ${DASHBOARD_LISTS}
				) l
			), '[]')`
		: sql`'[]'::json`
	const query = sql<Row>`
		select
			(select name from price_plans where id = ${PLAN}) as plan_name,
			${jobsPart} as jobs,
			${listsPart} as lists,
			-- per-day sums kept by a trigger on credit_reservations (migration 2026-11-24T0510):
			-- at most SPENT_DAYS rows of its primary key
			coalesce((
				select json_agg(json_build_object('day', s.day, 'credits', s.credits) order by s.day)
				from credits_spent_daily s
				where s.user_id = ${ACCOUNT}
					and s.day >= (now() at time zone 'UTC')::date - ${SPENT_DAYS - 1}::int
					and s.credits <> 0
			), '[]') as spent
	`.compile(db)
	// Planning this statement costs more than running it: prepared once per connection, one
	// name per form of its text (the scope makes a few). PostgreSQL then plans it once per
	// connection (a generic plan) as long as that plan costs no more than a fresh one: a test
	// holds it to that (get-dashboard.test.ts).
	prepareStatement('dashboard', query.sql, { perText: true })
	statements.set(key, query)
	return query
}

function jobHref(kind: DashboardJobKind, listId: string) {
	if (kind === 'company-search') return `/company-lists/${listId}`
	if (kind === 'enrichment') return `/lists/${listId}/enrich`
	if (kind === 'company-enrichment') return `/company-lists/${listId}/enrich`
	if (kind === 'upload') return '/uploads'
	return `/lists/${listId}`
}

/** The last SPENT_DAYS days (UTC) up to `today`, oldest first, 0 on days without spending. */
export function fillDays(spent: SpentDay[], today: Date): SpentDay[] {
	const byDay = new Map(spent.map((s) => [s.day, s.credits]))
	return daysUpTo(today).map((day) => ({ day, credits: byDay.get(day) ?? 0 }))
}

// The window's day names change once a day: made then, not on every dashboard view.
let spentWindow: { end: number; days: string[] } | undefined

function daysUpTo(today: Date) {
	const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())
	if (spentWindow?.end !== end) {
		const days = Array.from({ length: SPENT_DAYS }, (_, i) =>
			new Date(end - (SPENT_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
		)
		spentWindow = { end, days }
	}
	return spentWindow.days
}
