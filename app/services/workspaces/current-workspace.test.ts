import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertMember, insertWorkspace } from '../../../tests/support/team.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import {
	CONTEXT_REFS,
	loadAccountContext,
	loadSessionContextWith,
	type ReadWithContext,
} from '../../context.server.ts'
import {
	chooseWorkspace,
	chosenWorkspaceId,
	resolveCurrentWorkspaceId,
} from './current-workspace.server.ts'

// "The current workspace" in its two forms, on the same real cases: the TypeScript one the
// session middleware runs over the request context, and the SQL one inside the context's
// statement (currentWorkspaceSql), which a page read with the context relies on (decision 0075).

const currentWorkspaceRead: ReadWithContext<string | null> = {
	name: 'current_workspace_test',
	columns: `${CONTEXT_REFS.currentWorkspace} as current_workspace`,
	take: (row) => row.current_workspace as string | null,
}

type User = { id: string; email: string }

/** A request from a browser that holds `cookie` (or none). */
const requestWith = (cookie?: string) =>
	new Request('http://localhost/', { headers: cookie ? { Cookie: cookie } : {} })

/** The cookie a browser keeps after `user` chose `workspaceId` (as /workspaces/switch sets it). */
async function cookieChoosing(user: User, workspaceId: string, request = requestWith()) {
	const { setCookie } = await chooseWorkspace(
		request,
		await loadAccountContext(db, user),
		workspaceId,
	)
	return setCookie.split(';')[0]!
}

/** Both forms for one request of `user`: what the middleware picks, and what the statement picks. */
async function bothForms(user: User, request: Request) {
	const account = await loadAccountContext(db, user)
	const typescript = await resolveCurrentWorkspaceId(request, account)
	const { value } = await loadSessionContextWith(
		db,
		{ ...user, sessionId: null },
		{
			checkSession: false,
			chosenWorkspaceId: await chosenWorkspaceId(request, user.id),
			read: currentWorkspaceRead,
		},
	)
	return { typescript, sql: value }
}

describe('the current workspace, in TypeScript and in SQL', () => {
	test('both forms pick the same workspace in every case, and the one the user should work in', async () => {
		const owner = await insertUser(db)
		// "first" is by name with case aside ('Zed' sorts before 'alpha' by code point)
		const beta = await insertWorkspace(db, owner.id, 'beta')
		const zed = await insertWorkspace(db, owner.id, 'Zed')
		const alpha = await insertWorkspace(db, owner.id, 'alpha')
		const middle = await insertWorkspace(db, owner.id, 'Middle')
		const removed = await insertWorkspace(db, owner.id, 'Aardvark (removed)')
		const stranger = await insertUser(db)
		const theirs = await insertWorkspace(db, stranger.id, 'Aaa theirs')
		const limited = await insertMember(db, owner, { workspaceIds: [zed, beta] })
		const allAccess = await insertMember(db, owner, { workspaceIds: 'all' })
		// chose while a member of every workspace, then limited to two others
		const narrowed = await insertMember(db, owner, { workspaceIds: 'all' })
		const narrowedCookie = await cookieChoosing(narrowed, middle)
		await db
			.updateTable('team_members')
			.set({ access_all_workspaces: false })
			.where('id', '=', narrowed.memberId)
			.execute()
		await db
			.insertInto('team_member_workspace_acess')
			.values(
				[zed, beta].map((workspace_id) => ({ team_member_id: narrowed.memberId, workspace_id })),
			)
			.execute()
		const newcomer = await insertUser(db) // no workspace at all

		const removedCookie = await cookieChoosing(owner, removed)
		await db.deleteFrom('workspaces').where('id', '=', removed).execute()
		const cases: [string, User, Request, string | null][] = [
			['no cookie: the first by name', owner, requestWith(), alpha],
			['the chosen one', owner, requestWith(await cookieChoosing(owner, zed)), zed],
			['another chosen', owner, requestWith(await cookieChoosing(owner, middle)), middle],
			['a removed workspace: the first', owner, requestWith(removedCookie), alpha],
			[
				'a stale cookie (another secret): the first',
				owner,
				requestWith(staleCookie(zed, owner)),
				alpha,
			],
			['a cookie that is no cookie of ours', owner, requestWith('ls_workspace=garbage'), alpha],
			// another user's choice in the same browser says nothing about this user
			['another user chose', owner, requestWith(await cookieChoosing(stranger, theirs)), alpha],
			['a member: the first allowed', limited, requestWith(), beta],
			[
				'a member chose an allowed one',
				limited,
				requestWith(await cookieChoosing(limited, zed)),
				zed,
			],
			['a member, a choice no longer allowed', narrowed, requestWith(narrowedCookie), beta],
			[
				'a member of all workspaces chose one',
				allAccess,
				requestWith(await cookieChoosing(allAccess, middle)),
				middle,
			],
			[
				"another account's workspace chosen",
				owner,
				requestWith(await madeElsewhere(owner, theirs)),
				alpha,
			],
			['no workspace at all', newcomer, requestWith(), null],
			[
				'no workspace, a choice in a team left',
				newcomer,
				requestWith(await madeElsewhere(newcomer, theirs)),
				null,
			],
		]
		for (const [name, user, request, expected] of cases) {
			const { typescript, sql } = await bothForms(user, request)
			expect(sql, name).toBe(typescript)
			expect(typescript, name).toBe(expected)
		}
	})
})

/**
 * A choice made in another account (a team the user left since): signed by us, but of a
 * workspace the user may not use now.
 */
async function madeElsewhere(user: User, workspaceId: string) {
	const elsewhere = { user, workspaces: [{ id: workspaceId, name: 'elsewhere' }] }
	const { setCookie } = await chooseWorkspace(requestWith(), elsewhere, workspaceId)
	return setCookie.split(';')[0]!
}

/** A cookie as a browser may hold one from before APP_SECRET changed: its signature fails. */
function staleCookie(workspaceId: string, user: User) {
	const value = Buffer.from(JSON.stringify({ [user.id]: workspaceId })).toString('base64')
	return `ls_workspace=${encodeURIComponent(`${value}.not-our-signature`)}`
}
