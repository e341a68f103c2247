import { CompiledQuery } from 'kysely'
import { db as defaultDb, prepareStatement, type Database } from '../../../db/index.server.ts'
import { CONTEXT_REFS, type AccountContext, type ReadWithContext } from '../../context.server.ts'
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

// Every job and list of the account is a row of account_jobs, kept by triggers on the four job
// tables (migration 2026-11-25T1500, decision 0053). Unassigned rows are indexed under the nil
// uuid: an equality reads their range in order, where `is null` read all of it and sorted it.
const UNASSIGNED = `'00000000-0000-0000-0000-000000000000'::uuid`
const JOB_COLUMNS = 'j.id, j.kind, j.name, j.status, j.progress, j.error, j.list_id, j.created_at'
const LIST_COLUMNS = `j.id, case when j.kind = 'company-search' then 'companies' else 'leads' end as kind,
	j.name, j.status, j.found, j.created_at`

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
 *
 * `readWithContext`: the dashboard as the request context's statement read it (dashboardRead),
 * used when it was read for the same scope, which saves this statement's round trip.
 */
export async function getDashboard(
	context: AccountContext | null,
	workspaceId: string | null,
	{
		db = defaultDb,
		readWithContext = null,
	}: { db?: Database; readWithContext?: DashboardRead | null } = {},
): Promise<Dashboard> {
	// a member whose access ended acts in no account: an empty dashboard, not an error page
	if (context && !context.accountId) {
		return { planName: null, jobs: [], lists: [], spent: fillDays([], new Date()) }
	}
	const account = actingAccount(context)
	// The current workspace when the user may use it, and the unassigned rows for those who
	// see every workspace; a member with neither sees nothing.
	const workspace =
		workspaceId !== null && canUseWorkspace(account, workspaceId) ? workspaceId : null
	if (
		readWithContext &&
		readWithContext.accountId === account.accountId &&
		readWithContext.workspaceId === workspace &&
		readWithContext.unassigned === account.accessAllWorkspaces
	) {
		return readWithContext.dashboard
	}
	const text = dashboardStatement({
		workspace: workspace !== null,
		unassigned: account.accessAllWorkspaces,
	})
	const { rows } = await db.executeQuery<Row>(
		CompiledQuery.raw(text, [
			account.activePlan,
			account.accountId,
			...(workspace === null ? [] : [workspace]),
		]),
	)
	return dashboardOf(rows[0]!)
}

/** The dashboard as read with the request context, with the scope it was read for. */
export type DashboardRead = {
	accountId: string | null
	workspaceId: string | null
	unassigned: boolean
	dashboard: Dashboard
}

/**
 * The dashboard's columns in the request context's statement (decision 0054): the same parts
 * as its own statement, over the context's account, plan and workspace. Both parts of the scope
 * are always there, the unassigned one switched by whether the user sees every workspace.
 */
export const dashboardRead: ReadWithContext<DashboardRead> = {
	name: 'dashboard',
	columns: `${dashboardColumns({
		plan: CONTEXT_REFS.plan,
		account: CONTEXT_REFS.account,
		parts: [
			{ workspace: CONTEXT_REFS.currentWorkspace },
			{ workspace: UNASSIGNED, when: CONTEXT_REFS.seesAllWorkspaces },
		],
	})},
		${CONTEXT_REFS.account} as dashboard_account,
		${CONTEXT_REFS.currentWorkspace} as dashboard_workspace,
		${CONTEXT_REFS.seesAllWorkspaces} as dashboard_unassigned`,
	take: (row) => ({
		accountId: row.dashboard_account as string | null,
		workspaceId: row.dashboard_workspace as string | null,
		unassigned: row.dashboard_unassigned as boolean,
		dashboard: dashboardOf(row as unknown as Row),
	}),
}

function dashboardOf(row: Row): Dashboard {
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

const statements = new Map<string, string>()

/**
 * The statement for one form of the scope: $1 the plan, $2 the account, $3 the workspace (in the
 * forms with one). Its text depends only on which parts of the scope there are: built once per
 * form.
 */
function dashboardStatement(scope: { workspace: boolean; unassigned: boolean }): string {
	const key = `${scope.workspace}:${scope.unassigned}`
	const known = statements.get(key)
	if (known) return known
	const text = `select ${dashboardColumns({
		plan: '$1',
		account: '$2',
		parts: [
			...(scope.workspace ? [{ workspace: '$3' }] : []),
			...(scope.unassigned ? [{ workspace: UNASSIGNED }] : []),
		],
	})}`
	// Planning this statement costs more than running it: prepared once per connection, one
	// name per form of its text. PostgreSQL then plans it once per connection (a generic plan)
	// as long as that plan costs no more than a fresh one: a test holds it to that
	// (get-dashboard.test.ts).
	prepareStatement('dashboard', text, { perText: true })
	statements.set(key, text)
	return text
}

/**
 * The dashboard's four columns (plan_name, jobs, lists, spent) for SQL expressions of the plan,
 * the account and each part of the scope: a workspace, or UNASSIGNED, each read only `when` its
 * condition holds.
 */
function dashboardColumns(of: {
	plan: string
	account: string
	parts: { workspace: string; when?: string }[]
}): string {
	const { plan, account, parts } = of
	// Each part of the scope is its own index range (user_id, workspace, created_at desc): read
	// apart, each stops after a few rows, where an `or` of the two reads every row of both.
	const inPart = (part: { workspace: string; when?: string }) =>
		`${part.when ? `${part.when} and ` : ''}coalesce(j.workspace_id, ${UNASSIGNED}) = ${part.workspace}`
	// the running jobs (few: account_jobs_running_idx) and the newest finished ones of each
	// part of the scope, at most DASHBOARD_JOBS each
	const jobs = [
		`(select ${JOB_COLUMNS} from account_jobs j
			where j.user_id = ${account} and j.status < 2
				and (${parts.map((part) => `(${inPart(part)})`).join(' or ') || 'false'})
			order by j.created_at desc limit ${DASHBOARD_JOBS})`,
		...parts.map(
			(part) => `(select ${JOB_COLUMNS} from account_jobs j
				where j.user_id = ${account} and ${inPart(part)} and j.status >= 2
				order by j.created_at desc limit ${DASHBOARD_JOBS})`,
		),
	]
	const lists = parts.map(
		(part) => `(select ${LIST_COLUMNS} from account_jobs j
			where j.user_id = ${account} and ${inPart(part)} and j.is_list
			order by j.created_at desc limit ${DASHBOARD_LISTS})`,
	)
	// nothing in scope (a member limited elsewhere): no job or list to read at all
	const jobsPart = parts.length
		? `coalesce((
				select json_agg(j order by (j.status < 2) desc, j.created_at desc)
				from (
					select * from (${jobs.join(' union all ')}) k
					order by (status < 2) desc, created_at desc
					limit ${DASHBOARD_JOBS}
				) j
			), '[]')`
		: `'[]'::json`
	const listsPart = parts.length
		? `coalesce((
				select json_agg(l order by l.created_at desc)
				from (
					select * from (${lists.join(' union all ')}) k
					order by created_at desc
					limit ${DASHBOARD_LISTS}
				) l
			), '[]')`
		: `'[]'::json`
	return `
			(select name from price_plans where id = ${plan}) as plan_name,
			${jobsPart} as jobs,
			${listsPart} as lists,
			-- per-day sums kept by a trigger on credit_reservations (migration 2026-11-24T0510):
			-- at most SPENT_DAYS rows of its primary key
			coalesce((
				select json_agg(json_build_object('day', s.day, 'credits', s.credits) order by s.day)
				from credits_spent_daily s
				where s.user_id = ${account}
					and s.day >= (now() at time zone 'UTC')::date - ${SPENT_DAYS - 1}
					and s.credits <> 0
			), '[]') as spent`
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
