import { Kysely, PostgresDialect, sql } from 'kysely'
import { beforeEach, describe, expect, test } from 'vitest'
import { createDb, db, getPool } from '../db/index.server.ts'
import type { DB } from '../db/schema.ts'
import { insertSubscription, insertUser } from '../tests/support/factories.ts'
import { loadAccountContext } from './context.server.ts'

// A second Kysely on the same pool that records every statement it sends.
const statements: string[] = []
const counted = new Kysely<DB>({
	dialect: new PostgresDialect({ pool: getPool() }),
	log(event) {
		if (event.level === 'query') statements.push(event.query.sql)
	},
})

beforeEach(() => {
	statements.length = 0
})

/** The statements that loaded a context: an account's first also makes its settings row. */
const contextStatements = () => statements.filter((text) => !/insert into settings/i.test(text))

describe('the request context', () => {
	test('loads in one statement, which only reads, and creates the settings row once', async () => {
		const user = await insertUser(db)
		const first = await loadAccountContext(counted, user)
		// the account's first request also makes its settings row
		expect(statements).toHaveLength(2)
		expect(statements[0]).not.toMatch(/\binsert\b/i)
		expect(first.settings).toMatchObject({ emailbisonApiUrl: '', hasSuperAdminKey: false })
		const second = await loadAccountContext(counted, user)
		expect(statements).toHaveLength(3)
		expect(second.settings?.id).toBe(first.settings?.id)
		const rows = await db
			.selectFrom('settings')
			.selectAll()
			.where('user_id', '=', user.id)
			.execute()
		expect(rows).toHaveLength(1)
		expect(rows[0]!.emailbison_api_url).toBe('')
	})

	test("an account's first requests side by side make one settings row and both read it", async () => {
		const user = await insertUser(db)
		const loaded = await Promise.all([1, 2, 3].map(() => loadAccountContext(db, user)))
		const rows = await db
			.selectFrom('settings')
			.select('id')
			.where('user_id', '=', user.id)
			.execute()
		expect(rows).toHaveLength(1)
		expect(loaded.map((context) => context.settings?.id)).toEqual([
			rows[0]!.id,
			rows[0]!.id,
			rows[0]!.id,
		])
	})

	test('a settings row another first request is making is waited for and read', async () => {
		const user = await insertUser(db)
		const other = await getPool().connect()
		try {
			await other.query('begin')
			await other.query(
				`insert into settings (user_id, emailbison_api_url) values ($1, 'https://other.example')`,
				[user.id],
			)
			const loading = loadAccountContext(db, user)
			// until this load's insert waits on the other's row
			for (;;) {
				const { rows } = await getPool().query(
					`select 1 from pg_stat_activity
					 where wait_event_type = 'Lock' and query ilike '%insert into settings%'`,
				)
				if (rows.length > 0) break
				await new Promise((resolve) => setImmediate(resolve))
			}
			await other.query('commit')
			expect((await loading).settings?.emailbisonApiUrl).toBe('https://other.example')
		} finally {
			other.release()
		}
	})

	test('a new account: its own, no plan, all workspaces, not admin', async () => {
		const user = await insertUser(db)
		const context = await loadAccountContext(counted, user)
		expect(context).toMatchObject({
			accountId: user.id,
			activePlan: 0,
			isAdmin: false,
			isLTD: false,
			isTeamMember: false,
			accessAllWorkspaces: true,
			allowedWorkspaces: [],
			apiKeyProviders: [],
			creditBalance: 0,
			scopes: ['all'],
		})
	})

	test('activePlan comes from an active, unexpired subscription only', async () => {
		const expired = await insertUser(db)
		await insertSubscription(db, expired.id, { plan: 2, expiresInDays: -1 })
		expect((await loadAccountContext(counted, expired)).activePlan).toBe(0)

		const canceled = await insertUser(db)
		await insertSubscription(db, canceled.id, { plan: 2, status: 'canceled' })
		expect((await loadAccountContext(counted, canceled)).activePlan).toBe(0)

		const active = await insertUser(db)
		await insertSubscription(db, active.id, { plan: 4 })
		const context = await loadAccountContext(counted, active)
		expect(context.activePlan).toBe(4)
		expect(context.subscription).toMatchObject({ active_plan: 4, status: 'active' })
	})

	test('isAdmin follows the first role row', async () => {
		const admin = await insertUser(db)
		await db.insertInto('roles').values({ user_id: admin.id, role: 'admin' }).execute()
		expect((await loadAccountContext(counted, admin)).isAdmin).toBe(true)

		const editor = await insertUser(db)
		await db
			.insertInto('roles')
			.values({ user_id: editor.id, role: 'editor', created_at: new Date(Date.now() - 1000) })
			.execute()
		await db.insertInto('roles').values({ user_id: editor.id, role: 'admin' }).execute()
		const context = await loadAccountContext(counted, editor)
		expect(context.isAdmin).toBe(false)
		expect(context.platformRole).toBe('editor')
	})

	test('providers with keys, LTD and credits come from the account', async () => {
		const user = await insertUser(db)
		await db.updateTable('profiles').set({ is_ltd: true }).where('user_id', '=', user.id).execute()
		await db
			.insertInto('api_keys')
			.values([
				{ user_id: user.id, provider: 'openai', encrypted_key: 'x', last4: 'abcd' },
				{ user_id: user.id, provider: 'apify', encrypted_key: 'y', last4: 'efgh' },
			])
			.execute()
		await db.insertInto('credit_balances').values({ user_id: user.id, balance: 250 }).execute()
		const context = await loadAccountContext(counted, user)
		expect(context).toMatchObject({
			isLTD: true,
			apiKeyProviders: ['apify', 'openai'],
			creditBalance: 250,
		})
		expect(contextStatements()).toHaveLength(1)
	})

	test('a team member acts in the owner account, with its role and workspaces', async () => {
		const owner = await insertUser(db)
		const member = await insertUser(db)
		const [allowed, other] = await db
			.insertInto('workspaces')
			.values([
				{ user_id: owner.id, name: 'Allowed' },
				{ user_id: owner.id, name: 'Other' },
			])
			.returning('id')
			.execute()
		await insertSubscription(db, owner.id, { plan: 1 })
		await db
			.insertInto('api_keys')
			.values({ user_id: owner.id, provider: 'apify', encrypted_key: 'x', last4: '1234' })
			.execute()
		const tm = await db
			.insertInto('team_members')
			.values({
				user_id: owner.id,
				email: member.email,
				role: 'editor',
				access_all_workspaces: false,
				member_user_id: member.id,
				status: 'active',
				scopes: ['domain-management:read'],
			})
			.returning('id')
			.executeTakeFirstOrThrow()
		await db
			.insertInto('team_member_workspace_acess')
			.values({ team_member_id: tm.id, workspace_id: allowed!.id })
			.execute()
		await db
			.updateTable('profiles')
			.set({ primary_user_id: owner.id })
			.where('user_id', '=', member.id)
			.execute()

		const context = await loadAccountContext(counted, member)
		expect(contextStatements()).toHaveLength(1)
		expect(context).toMatchObject({
			accountId: owner.id,
			isTeamMember: true,
			isActiveTeamMember: true,
			teamRole: 'editor',
			primaryUserId: owner.id,
			accessAllWorkspaces: false,
			allowedWorkspaces: [allowed!.id],
			activePlan: 1,
			apiKeyProviders: ['apify'],
			scopes: ['domain-management:read'],
		})
		expect(context.workspaces.map((w) => w.id)).toEqual([allowed!.id])
		expect(context.workspaces.map((w) => w.id)).not.toContain(other!.id)
		// the owner's settings row, not the member's
		expect(context.settings?.id).toBeDefined()
		const memberSettings = await db
			.selectFrom('settings')
			.select('id')
			.where('user_id', '=', member.id)
			.execute()
		expect(memberSettings).toHaveLength(0)
	})

	test('a team member is active only with status active', async () => {
		const owner = await insertUser(db)
		const member = await insertUser(db)
		await db
			.insertInto('team_members')
			.values({
				user_id: owner.id,
				email: member.email,
				role: 'admin',
				member_user_id: member.id,
				status: 'revoked',
			})
			.execute()
		await db
			.updateTable('profiles')
			.set({ primary_user_id: owner.id })
			.where('user_id', '=', member.id)
			.execute()
		const context = await loadAccountContext(counted, member)
		expect(context).toMatchObject({
			isTeamMember: true,
			isActiveTeamMember: false,
			accountId: null,
			teamRole: null,
			activePlan: 0,
		})
	})

	test('is a prepared statement: each connection plans it once', async () => {
		const user = await insertUser(db)
		const oneConnection = createDb(process.env.DATABASE_URL!, { max: 1 })
		try {
			const first = await loadAccountContext(oneConnection, user)
			const second = await loadAccountContext(oneConnection, user)
			expect(second).toEqual(first)
			const { rows } = await sql<{
				name: string
			}>`select name from pg_prepared_statements`.execute(oneConnection)
			expect(rows.map((row) => row.name)).toContain('account_context')
		} finally {
			await oneConnection.destroy()
		}
	})
})
