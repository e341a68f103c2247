// Ending a session takes effect on the next request: the request context (one statement)
// answers null for an access token whose session row is gone or whose user is banned or
// deleted, while the token itself still verifies. Sessions come from the embedded auth
// service through supabase-js, as the app gets them.
import { randomUUID } from 'node:crypto'
import { Kysely, PostgresDialect } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { Session, SupabaseClient } from '@supabase/supabase-js'
import { db, getPool } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { startTestAuthServer, type TestAuthServer } from '../../auth-service/testing.server.ts'
import { loadSessionContext, loadSessionContextWith } from '../../context.server.ts'
import { dashboardRead } from '../dashboard/get-dashboard.server.ts'
import { sessionUserOf } from './session.server.ts'

const PASSWORD = 'correct horse 42'
let server: TestAuthServer
let admin: SupabaseClient

// Counts the statements the request context sends.
const statements: string[] = []
/** The statements that loaded a context: an account's first also makes its settings row. */
const contextStatements = () => statements.filter((text) => !/insert into settings/i.test(text))
const counted = new Kysely<DB>({
	dialect: new PostgresDialect({ pool: getPool() }),
	log(event) {
		if (event.level === 'query') statements.push(event.query.sql)
	},
})

beforeAll(async () => {
	server = await startTestAuthServer({
		AUTH_RATE_LIMIT_IP: '100000',
		AUTH_RATE_LIMIT_EMAIL: '1000',
	})
	admin = server.admin()
})
afterAll(async () => {
	await server?.close()
})
beforeEach(() => {
	statements.length = 0
})

/** A user signed in twice: two browsers, two sessions. */
async function twoSessions() {
	const email = `revoke-${randomUUID().slice(0, 8)}@example.com`
	const { error } = await server.client().auth.signUp({ email, password: PASSWORD })
	expect(error).toBeNull()
	const first = await signIn(email)
	const second = await signIn(email)
	return { email, first, second }
}

async function signIn(email: string, password = PASSWORD) {
	const client = server.client()
	const { data, error } = await client.auth.signInWithPassword({ email, password })
	expect(error).toBeNull()
	return { client, session: data.session! }
}

/** What the session middleware does with a copied cookie's access token. */
async function contextOf(session: Session) {
	const { data, error } = await server.client().auth.getClaims(session.access_token)
	expect(error).toBeNull()
	return loadSessionContext(counted, sessionUserOf(data!.claims))
}

describe('the request context checks the session in its one statement', () => {
	test('a live session loads the context in one statement', async () => {
		const { first } = await twoSessions()
		const context = await contextOf(first.session)
		expect(context?.user.id).toBe(first.session.user.id)
		expect(contextStatements()).toHaveLength(1)
	})

	test('sign-out (local) ends that session only; global ends all', async () => {
		const { email, first, second } = await twoSessions()
		await first.client.auth.signOut({ scope: 'local' })
		expect(await contextOf(first.session)).toBeNull()
		expect(await contextOf(second.session)).not.toBeNull()

		const third = await signIn(email)
		await third.client.auth.signOut({ scope: 'global' })
		expect(await contextOf(second.session)).toBeNull()
		expect(await contextOf(third.session)).toBeNull()
		expect(contextStatements()).toHaveLength(4)
	})

	test('the dashboard read with the context is checked the same way: an ended session reads neither', async () => {
		const { first, second } = await twoSessions()
		await first.client.auth.signOut({ scope: 'local' })
		const withDashboard = async (session: Session) => {
			const { data } = await server.client().auth.getClaims(session.access_token)
			return loadSessionContextWith(counted, sessionUserOf(data!.claims), {
				chosenWorkspaceId: null,
				read: dashboardRead,
			})
		}
		expect(await withDashboard(first.session)).toEqual({ account: null, value: null })
		const live = await withDashboard(second.session)
		expect(live.account?.user.id).toBe(second.session.user.id)
		expect(live.value?.dashboard).toMatchObject({ jobs: [], lists: [] })
		expect(contextStatements()).toHaveLength(2)
	})

	test('a password change keeps the current session and ends the others', async () => {
		const { first, second } = await twoSessions()
		const { error } = await first.client.auth.updateUser({ password: 'a new horse 43' })
		expect(error).toBeNull()
		expect(await contextOf(first.session)).not.toBeNull()
		expect(await contextOf(second.session)).toBeNull()
	})

	test('an admin ban ends every session at once; unbanned, a new sign-in works', async () => {
		const { email, first, second } = await twoSessions()
		const userId = first.session.user.id
		await admin.auth.admin.updateUserById(userId, { ban_duration: '876000h' })
		expect(await contextOf(first.session)).toBeNull()
		expect(await contextOf(second.session)).toBeNull()
		await admin.auth.admin.updateUserById(userId, { ban_duration: 'none' })
		expect(await contextOf((await signIn(email)).session)).not.toBeNull()
	})

	test('revoking the session rows (admin sign-out of all sessions) ends them', async () => {
		const { first, second } = await twoSessions()
		await db.deleteFrom('auth.sessions').where('user_id', '=', first.session.user.id).execute()
		expect(await contextOf(first.session)).toBeNull()
		expect(await contextOf(second.session)).toBeNull()
	})

	test('a session past its not_after ends', async () => {
		const { first, second } = await twoSessions()
		const claims = JSON.parse(
			Buffer.from(first.session.access_token.split('.')[1]!, 'base64url').toString(),
		) as { session_id: string }
		await db
			.updateTable('auth.sessions')
			.set({ not_after: new Date(Date.now() - 1000) })
			.where('id', '=', claims.session_id)
			.execute()
		expect(await contextOf(first.session)).toBeNull()
		expect(await contextOf(second.session)).not.toBeNull()
	})

	test('a deleted user (hard or soft delete) is signed out', async () => {
		const hard = await twoSessions()
		await admin.auth.admin.deleteUser(hard.first.session.user.id)
		expect(await contextOf(hard.first.session)).toBeNull()

		const soft = await twoSessions()
		await admin.auth.admin.deleteUser(soft.first.session.user.id, true)
		expect(await contextOf(soft.second.session)).toBeNull()
	})

	test('a dead session writes nothing (no settings row for it)', async () => {
		const { first } = await twoSessions()
		await first.client.auth.signOut({ scope: 'local' })
		expect(await contextOf(first.session)).toBeNull()
		const settings = await db
			.selectFrom('settings')
			.select('id')
			.where('user_id', '=', first.session.user.id)
			.execute()
		expect(settings).toHaveLength(0)
	})

	test('a token without a session_id counts as signed out', async () => {
		const { first } = await twoSessions()
		const user = sessionUserOf({ sub: first.session.user.id, email: first.session.user.email })
		expect(user.sessionId).toBeNull()
		expect(await loadSessionContext(counted, user)).toBeNull()
	})

	test('with AUTH_SESSION_CHECK=token only the token counts (external Supabase elsewhere)', async () => {
		const { first } = await twoSessions()
		await first.client.auth.signOut({ scope: 'local' })
		const { data } = await server.client().auth.getClaims(first.session.access_token)
		const context = await loadSessionContext(counted, sessionUserOf(data!.claims), {
			checkSession: false,
		})
		expect(context?.user.id).toBe(first.session.user.id)
	})
})
