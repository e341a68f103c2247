import { randomUUID } from 'node:crypto'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { createDb, db, getPool } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type * as DatabaseModule from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { accountWithCredits } from '../../../tests/support/jobs.ts'
import {
	buildAccounts,
	contextOf,
	insertMember,
	insertWorkspace,
} from '../../../tests/support/team.ts'
import { loadAccountContext, loadSessionContextWith } from '../../context.server.ts'
import {
	commitCredits,
	grantCredits,
	releaseCredits,
	reserveCredits,
} from '../billing/credits.server.ts'
import { deleteLeadList } from '../lists/manage-list.server.ts'
import { currentWorkspaceOf } from '../workspaces/current-workspace.server.ts'
import { moveToWorkspace } from '../workspaces/move-to-workspace.server.ts'
import { dashboardRead, fillDays, getDashboard, SPENT_DAYS } from './get-dashboard.server.ts'

async function leadList(userId: string, name: string, values: Record<string, unknown> = {}) {
	return (
		await db
			.insertInto('processing_list')
			.values({ user_id: userId, name, source_type: 'apollo', ...values })
			.returning('id')
			.executeTakeFirstOrThrow()
	).id
}

async function companyList(userId: string, name: string, values: Record<string, unknown> = {}) {
	return (
		await db
			.insertInto('company_scraping_list')
			.values({ user_id: userId, name, source_type: 'domains', ...values })
			.returning('id')
			.executeTakeFirstOrThrow()
	).id
}

describe('dashboard', () => {
	test('running jobs come first with their progress, then the newest finished ones; lists link to their pages', async () => {
		const me = await accountWithCredits(100)
		const id = me.accountId!
		const old = new Date(Date.now() - 3_600_000)
		const done = await leadList(id, 'Done search', {
			status: 2,
			found: 40,
			progress: 100,
			created_at: old,
		})
		const importing = await leadList(id, 'Importing', {
			source_type: 'upload',
			status: 1,
			progress: 35,
			created_at: new Date(Date.now() - 7_200_000),
		})
		const companies = await companyList(id, 'Targets', { status: 2, found: 3, progress: 100 })
		const run = (
			await db
				.insertInto('enrichment_runs')
				.values({
					user_id: id,
					list_id: done,
					name: 'Icebreaker',
					key_kind: 'ownKey',
					steps: JSON.stringify([]),
					status: 1,
					total: 4,
					prepared: true,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
		).id
		const leads = await db
			.insertInto('leads')
			.values([0, 1, 2, 3].map((i) => ({ list_id: done, user_id: id, email: `l${i}@example.com` })))
			.returning('id')
			.execute()
		await db
			.insertInto('enrichment_run_rows')
			.values(leads.map((l, i) => ({ run_id: run, lead_id: l.id, status: i === 0 ? 2 : 0 })))
			.execute()

		const dashboard = await getDashboard(me, null)
		expect(dashboard.jobs.map((j) => [j.name, j.kind, j.status, j.progress, j.href])).toEqual([
			['Icebreaker', 'enrichment', 1, 25, `/lists/${done}/enrich`],
			['Importing', 'csv-import', 1, 35, `/lists/${importing}`],
			['Targets', 'company-search', 2, 100, `/company-lists/${companies}`],
			['Done search', 'lead-search', 2, 100, `/lists/${done}`],
		])
		expect(dashboard.lists.map((l) => [l.name, l.kind, l.found, l.href])).toEqual([
			['Targets', 'companies', 3, `/company-lists/${companies}`],
			['Done search', 'leads', 40, `/lists/${done}`],
			['Importing', 'leads', 0, `/lists/${importing}`],
		])
		expect(dashboard.planName).toBeNull()
	})

	test('an old running job still shows, before ten newer finished ones', async () => {
		const me = await accountWithCredits()
		const id = me.accountId!
		await leadList(id, 'Long import', {
			source_type: 'upload',
			status: 0,
			created_at: new Date(Date.now() - 86_400_000),
		})
		for (let i = 0; i < 10; i++) await leadList(id, `Finished ${i}`, { status: 2, progress: 100 })
		const { jobs, lists } = await getDashboard(me, null)
		expect(jobs).toHaveLength(8)
		expect(jobs[0]).toMatchObject({ name: 'Long import', kind: 'csv-import', status: 0 })
		expect(jobs.slice(1).every((j) => j.status === 2)).toBe(true)
		expect(lists).toHaveLength(5)
		expect(lists.map((l) => l.name)).not.toContain('Long import')
	})

	test('credits spent a day: what settled jobs used and what running jobs hold, 30 days', async () => {
		const me = await accountWithCredits(500)
		const id = me.accountId!
		await reserveCredits(db, { accountId: id, amount: 50, reference: 'job-a' })
		await commitCredits(db, { accountId: id, reference: 'job-a', used: 20 })
		await reserveCredits(db, { accountId: id, amount: 7, reference: 'job-b' })
		await reserveCredits(db, { accountId: id, amount: 30, reference: 'job-old' })
		await db
			.updateTable('credit_reservations')
			.set({ created_at: new Date(Date.now() - 2 * 86_400_000) })
			.where('reference', '=', 'job-old')
			.execute()
		await reserveCredits(db, { accountId: id, amount: 90, reference: 'job-too-old' })
		await db
			.updateTable('credit_reservations')
			.set({ created_at: new Date(Date.now() - 40 * 86_400_000) })
			.where('reference', '=', 'job-too-old')
			.execute()
		// someone else's spending is not ours
		const other = await accountWithCredits(100)
		await reserveCredits(db, { accountId: other.accountId!, amount: 60, reference: 'x' })

		const { spent } = await getDashboard(me, null)
		expect(spent).toHaveLength(SPENT_DAYS)
		const today = new Date().toISOString().slice(0, 10)
		expect(spent.at(-1)).toEqual({ day: today, credits: 27 })
		expect(spent.at(-3)!.credits).toBe(30)
		expect(spent.reduce((sum, d) => sum + d.credits, 0)).toBe(57)
	})

	test('the per-day sums follow every reservation: released, settled twice, and gone with the account', async () => {
		const me = await accountWithCredits(500)
		const id = me.accountId!
		await reserveCredits(db, { accountId: id, amount: 40, reference: 'job-a' })
		await reserveCredits(db, { accountId: id, amount: 25, reference: 'job-b' })
		expect((await getDashboard(me, null)).spent.at(-1)!.credits).toBe(65)
		// a failed job gives everything back: it spent nothing
		await releaseCredits(db, { accountId: id, reference: 'job-a' })
		await commitCredits(db, { accountId: id, reference: 'job-b', used: 10 })
		await commitCredits(db, { accountId: id, reference: 'job-b', used: 10 })
		const { spent } = await getDashboard(me, null)
		expect(spent.reduce((sum, d) => sum + d.credits, 0)).toBe(10)
		// deleting the account takes its reservations and their sums with it
		await db.deleteFrom('auth.users').where('id', '=', id).execute()
		const { rows } = await sql<{
			n: number
		}>`select count(*)::int as n from credits_spent_daily where user_id = ${id}`.execute(db)
		expect(rows[0]!.n).toBe(0)
	})

	test('only what the user may see: the current workspace, never another account', async () => {
		const { users, workspaces, inX, inZ } = await buildAccounts(db)
		await db
			.updateTable('processing_list')
			.set({ status: 1 })
			.where('id', 'in', [inX.list, inZ.list])
			.execute()
		const owner = await contextOf(db, users.owner)
		const inOwnersX = await getDashboard(owner, workspaces.X)
		expect(inOwnersX.jobs.map((j) => j.id).sort()).toEqual([inX.list, inX.companyList].sort())
		expect(inOwnersX.planName).toBe('Monthly Unlimited')
		// another workspace of the account shows its own (none here)
		expect((await getDashboard(owner, workspaces.Y)).jobs).toEqual([])
		// a member limited to Y never sees X, even when asked for it
		const noX = await contextOf(db, users.noX)
		const asked = await getDashboard(noX, workspaces.X)
		expect(asked.jobs).toEqual([])
		expect(asked.lists).toEqual([])
		// another account's workspace id shows nothing of it
		expect((await getDashboard(owner, workspaces.Z)).lists).toEqual([])
		const stranger = await contextOf(db, users.stranger)
		expect((await getDashboard(stranger, workspaces.Z)).lists.map((l) => l.id).sort()).toEqual(
			[inZ.list, inZ.companyList].sort(),
		)
	})

	test('each connection plans the statement once and reuses it, on the pool server.ts makes', async () => {
		const me = await accountWithCredits(100)
		const id = me.accountId!
		const list = await leadList(id, 'Done search', { status: 2, found: 40, progress: 100 })
		await leadList(id, 'Searching', { status: 1, progress: 10 })
		await db
			.insertInto('enrichment_runs')
			.values(
				[1, 2].map((status) => ({
					user_id: id,
					list_id: list,
					name: `Run ${status}`,
					key_kind: 'ownKey',
					steps: JSON.stringify([]),
					status,
					total: 4,
					prepared: true,
				})),
			)
			.execute()
		await reserveCredits(db, { accountId: id, amount: 5, reference: 'job-a' })
		// server.ts makes the pool from Node's copy of the database module; the routes register
		// their statements from the server bundle's own copy (here: the test's)
		const modulePath = '../../../db/index.server.ts?server-copy'
		const serverCopy = (await import(modulePath)) as typeof DatabaseModule
		const oneConnection = serverCopy.createDb(process.env.DATABASE_URL!, { max: 1 })
		try {
			const first = await getDashboard(me, null, { db: oneConnection })
			for (let i = 0; i < 7; i++) await getDashboard(me, null, { db: oneConnection })
			expect(await getDashboard(me, null, { db: oneConnection })).toEqual(first)
			const { rows } = await sql<{ generic_plans: number; custom_plans: number }>`
				select generic_plans, custom_plans from pg_prepared_statements
				where name like 'dashboard_%'`.execute(oneConnection)
			expect(rows).toHaveLength(1)
			// PostgreSQL plans the first five calls afresh, then keeps one plan when it costs no more
			expect(rows[0]!.custom_plans).toBeLessThanOrEqual(5)
			expect(rows[0]!.generic_plans).toBeGreaterThanOrEqual(4)
		} finally {
			await oneConnection.destroy()
		}
	})

	test('a member whose access ended gets an empty dashboard, not an error', async () => {
		const { users, workspaces } = await buildAccounts(db)
		await db
			.updateTable('team_members')
			.set({ status: 'revoked' })
			.where('member_user_id', '=', users.admin.id)
			.execute()
		const ended = await loadAccountContext(db, users.admin)
		expect(ended.accountId).toBeNull()
		const dashboard = await getDashboard(ended, workspaces.X)
		expect(dashboard).toMatchObject({ planName: null, jobs: [], lists: [] })
		expect(dashboard.spent).toHaveLength(SPENT_DAYS)
	})

	test('a new account sees no jobs, no lists and 30 days at 0', async () => {
		const user = await insertUser(db)
		const me = await loadAccountContext(db, user)
		const dashboard = await getDashboard(me, null)
		expect(dashboard).toMatchObject({ jobs: [], lists: [] })
		expect(dashboard.spent.every((d) => d.credits === 0)).toBe(true)
	})

	test('jobs and lists follow every change: progress, a rename, a move, a failure, deletions, an account gone', async () => {
		const me = await accountWithCredits(100)
		const id = me.accountId!
		const X = await insertWorkspace(db, id, 'X')
		const Y = await insertWorkspace(db, id, 'Y')
		const owner = await contextOf(db, me.user)
		const search = await leadList(id, 'Search', { status: 1, progress: 10, workspace_id: X })
		const companies = await companyList(id, 'Targets', { status: 1, workspace_id: X })
		const upload = (
			await db
				.insertInto('emailbison_upload')
				.values({
					user_id: id,
					workspace_id: X,
					list_id: search,
					eb_workspace_id: '1',
					campaign_name: 'Spring',
					status: 1,
					total: 200,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
		).id
		const jobsIn = async (workspace: string) =>
			(await getDashboard(owner, workspace)).jobs.map((j) => [j.name, j.status, j.progress])
		expect(await jobsIn(X)).toEqual([
			['Spring', 1, 0],
			['Targets', 1, 0],
			['Search', 1, 10],
		])

		await db
			.updateTable('processing_list')
			.set({ progress: 60, found: 120 })
			.where('id', '=', search)
			.execute()
		await db.updateTable('emailbison_upload').set({ sent: 50 }).where('id', '=', upload).execute()
		await db
			.updateTable('company_scraping_list')
			.set({ status: 3, error: 'Apify run failed', name: 'Targets (EU)' })
			.where('id', '=', companies)
			.execute()
		const afterWrites = await getDashboard(owner, X)
		expect(afterWrites.jobs.map((j) => [j.name, j.status, j.progress, j.error])).toEqual([
			['Spring', 1, 25, null],
			['Search', 1, 60, null],
			['Targets (EU)', 3, 0, 'Apify run failed'],
		])
		expect(afterWrites.lists.find((l) => l.id === search)?.found).toBe(120)

		// moved with its upload: gone from X, shown in Y
		await moveToWorkspace(owner, 'list', search, Y)
		expect(await jobsIn(X)).toEqual([['Targets (EU)', 3, 0]])
		expect(await jobsIn(Y)).toEqual([
			['Spring', 1, 25],
			['Search', 1, 60],
		])
		await expectFeedMatchesTheJobs()

		// deleting the list (once its upload has ended: a running one refuses it) takes its
		// upload with it, from the dashboard too
		await db
			.updateTable('emailbison_upload')
			.set({ status: 2, sent: 200 })
			.where('id', '=', upload)
			.execute()
		await deleteLeadList(owner, search)
		expect((await getDashboard(owner, Y)).jobs).toEqual([])
		expect((await getDashboard(owner, Y)).lists).toEqual([])
		await expectFeedMatchesTheJobs()

		await db.deleteFrom('auth.users').where('id', '=', id).execute()
		const { rows } = await sql<{ n: number }>`
			select count(*)::int as n from account_jobs where user_id = ${id}`.execute(db)
		expect(rows[0]!.n).toBe(0)
	})

	test('an account with hundreds of unassigned lists reads a few rows of them per view', async () => {
		const me = await accountWithCredits()
		const id = me.accountId!
		await db
			.insertInto('processing_list')
			.values(
				Array.from({ length: 400 }, (_, i) => ({
					user_id: id,
					name: `List ${i}`,
					source_type: 'apollo',
					status: 2,
					progress: 100,
					created_at: new Date(Date.now() - i * 60_000),
				})),
			)
			.execute()
		await sql`analyze account_jobs`.execute(db)
		const oneConnection = createDb(process.env.DATABASE_URL!, { max: 1 })
		try {
			const dashboard = await getDashboard(me, null, { db: oneConnection })
			expect(dashboard.lists.map((l) => l.name)).toEqual([
				'List 0',
				'List 1',
				'List 2',
				'List 3',
				'List 4',
			])
			expect(dashboard.jobs).toHaveLength(8)
			// and read with the request context, as the page reads it
			const { value } = await loadSessionContextWith(
				oneConnection,
				{ id, email: me.user.email, sessionId: null },
				{ checkSession: false, chosenWorkspaceId: null, read: dashboardRead },
			)
			expect(value!.dashboard).toEqual(dashboard)
			const { rows } = await sql<{ name: string }>`
				select name from pg_prepared_statements
				where name like 'dashboard_%' or name = 'account_context_with_dashboard'
				order by name`.execute(oneConnection)
			expect(rows).toHaveLength(2)
			// the plan PostgreSQL keeps for each statement (a generic one, as after five calls)
			await sql`set plan_cache_mode = force_generic_plan`.execute(oneConnection)
			for (const parameters of [
				[false, null, id, null],
				[me.activePlan, id],
			]) {
				const name = parameters.length === 4 ? rows[0]!.name : rows[1]!.name
				const explained = await sql<{ 'QUERY PLAN': Plan[] }>`
					explain (analyze, format json) execute ${sql.raw(name)}(${sql.join(parameters.map((p) => sql.lit(p)))})
				`.execute(oneConnection)
				const scans = nodesOf(explained.rows[0]!['QUERY PLAN'][0]!.Plan).filter(
					(node) => node['Relation Name'] === 'account_jobs',
				)
				expect(scans.length).toBeGreaterThan(0)
				// each range read in order and stopped after what the page shows, not all 400 read
				// and sorted
				for (const scan of scans) expect(scan['Actual Rows']).toBeLessThanOrEqual(8)
			}
		} finally {
			await oneConnection.destroy()
		}
	})

	test('read with the request context, the dashboard is the one its own statement reads, for every user and workspace chosen', async () => {
		const { users, workspaces, inX, inZ } = await buildAccounts(db)
		const owner = users.owner.id
		// running and finished jobs in X, the account's unassigned lists, the stranger's own
		await db
			.updateTable('processing_list')
			.set({ status: 1, progress: 30 })
			.where('id', '=', inX.list)
			.execute()
		await leadList(owner, 'Unassigned search', { status: 2, found: 12, progress: 100 })
		await companyList(owner, 'Unassigned companies', { status: 1, progress: 50 })
		await db.updateTable('processing_list').set({ status: 2 }).where('id', '=', inZ.list).execute()
		await grantCredits(db, {
			accountId: owner,
			amount: 10,
			reason: 'admin',
			reference: `g-${owner}`,
		})
		await reserveCredits(db, { accountId: owner, amount: 7, reference: `along-${owner}` })
		// a member whose access ended acts in no account
		const ended = await insertMember(db, users.owner, { role: 'editor' })
		await db
			.updateTable('team_members')
			.set({ status: 'revoked' })
			.where('member_user_id', '=', ended.id)
			.execute()
		const choices = [null, workspaces.X, workspaces.Y, workspaces.E, workspaces.Z, randomUUID()]
		let shown = 0
		for (const user of [...Object.values(users), ended]) {
			for (const chosen of choices) {
				const { account, value } = await loadSessionContextWith(
					db,
					{ id: user.id, email: user.email, sessionId: null },
					{ checkSession: false, chosenWorkspaceId: chosen, read: dashboardRead },
				)
				const current = currentWorkspaceOf(account!, chosen)
				const own = await getDashboard(account, current)
				// read for the scope the page shows, so the page uses it, and the same dashboard
				expect(value!.workspaceId).toBe(account!.accountId ? current : null)
				expect(value!.unassigned).toBe(account!.accessAllWorkspaces)
				// (a member whose access ended gets the empty dashboard without reading)
				if (account!.accountId) {
					expect(await getDashboard(account, current, { readWithContext: value })).toBe(
						value!.dashboard,
					)
				}
				expect(value!.dashboard).toEqual(own)
				shown += own.jobs.length + own.lists.length
			}
		}
		// not a comparison of empty dashboards
		expect(shown).toBeGreaterThan(50)
	})

	test('with a read for its scope, the dashboard sends no statement of its own; read for another, it does', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const statements: string[] = []
		const counted = new Kysely<DB>({
			dialect: new PostgresDialect({ pool: getPool() }),
			log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
		})
		const user = { id: users.owner.id, email: users.owner.email, sessionId: null }
		const { account, value } = await loadSessionContextWith(counted, user, {
			checkSession: false,
			chosenWorkspaceId: workspaces.X,
			read: dashboardRead,
		})
		// (an account's first request also makes its settings row)
		const reads = () => statements.filter((text) => !/insert into settings/i.test(text))
		expect(reads()).toHaveLength(1)
		expect(value!.dashboard.lists.map((l) => l.name).sort()).toEqual(['Companies', 'Leads'])
		await getDashboard(account, workspaces.X, { db: counted, readWithContext: value })
		expect(reads()).toHaveLength(1)
		// the page asks for another workspace than the one read (the cookie changed meanwhile)
		const inY = await getDashboard(account, workspaces.Y, { db: counted, readWithContext: value })
		expect(reads()).toHaveLength(2)
		expect(inY.lists).toEqual([])
	})

	test('fillDays keeps the last 30 UTC days, oldest first', () => {
		const days = fillDays([{ day: '2026-03-01', credits: 4 }], new Date('2026-03-01T23:30:00Z'))
		expect(days[0]!.day).toBe('2026-01-31')
		expect(days.at(-1)).toEqual({ day: '2026-03-01', credits: 4 })
		expect(days.filter((d) => d.credits > 0)).toHaveLength(1)
		// the next day moves the window by one, its first minute included
		const next = fillDays([], new Date('2026-03-02T00:00:00Z'))
		expect([next[0]!.day, next.at(-1)!.day]).toEqual(['2026-02-01', '2026-03-02'])
		expect(fillDays([], new Date('2026-03-01T00:00:00Z')).at(-1)!.day).toBe('2026-03-01')
	})
})

type Plan = { Plan: PlanNode }
type PlanNode = { 'Relation Name'?: string; 'Actual Rows': number; Plans?: PlanNode[] }

function nodesOf(node: PlanNode): PlanNode[] {
	return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

/** account_jobs holds exactly what a fresh build from the four job tables makes of them. */
async function expectFeedMatchesTheJobs() {
	const { rows } = await sql<{ missing: number; extra: number }>`
		with fresh as (
			select (account_jobs_of_lead_list(p)).* from processing_list p
			union all select (account_jobs_of_company_list(c)).* from company_scraping_list c
			union all select (account_jobs_of_enrichment_run(e)).* from enrichment_runs e
			union all select (account_jobs_of_upload(u)).* from emailbison_upload u
		)
		select
			(select count(*)::int from (select * from fresh except select * from account_jobs) m) as missing,
			(select count(*)::int from (select * from account_jobs except select * from fresh) e) as extra
	`.execute(db)
	expect(rows[0]).toEqual({ missing: 0, extra: 0 })
}
