import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import {
	buildAccounts,
	contextOf,
	insertMember,
	insertWorkspace,
} from '../../../tests/support/team.ts'
import { listScrapeLists } from '../leads/scrape-lists.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { createWorkspace } from './create-workspace.server.ts'
import { chooseWorkspace, resolveCurrentWorkspaceId } from './current-workspace.server.ts'
import { deleteWorkspace } from './delete-workspace.server.ts'
import { listWorkspaces } from './list-workspaces.server.ts'
import { moveToWorkspace } from './move-to-workspace.server.ts'
import { renameWorkspace } from './rename-workspace.server.ts'
import { updateMember } from '../team/update-member.server.ts'
import { getDashboard } from '../dashboard/get-dashboard.server.ts'

async function formError(run: () => Promise<unknown>) {
	try {
		await run()
	} catch (error) {
		if (error instanceof FormError) return { field: error.field, message: error.message }
		throw error
	}
	throw new Error('expected a FormError')
}

describe('workspaces', () => {
	test('names are unique per account, whatever the case', async () => {
		const { users } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(await formError(() => createWorkspace(owner, { name: 'x' }))).toEqual({
			field: 'name',
			message: 'A workspace named “x” already exists.',
		})
		const stranger = await contextOf(db, users.stranger)
		await createWorkspace(stranger, { name: 'X' })
		const created = await createWorkspace(owner, { name: 'Fresh' })
		// the next request's context knows the new workspace
		const next = await contextOf(db, users.owner)
		expect(await formError(() => renameWorkspace(next, created.id, { name: 'y' }))).toEqual({
			field: 'name',
			message: 'A workspace named “y” already exists.',
		})
		expect(await renameWorkspace(next, created.id, { name: 'Fresher' })).toMatchObject({
			name: 'Fresher',
		})
	})

	test('deleting one that holds things says what it holds; empty ones go', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(await formError(() => deleteWorkspace(owner, workspaces.X))).toEqual({
			field: null,
			message:
				'“X” still holds 1 lead list, 1 company list, 1 domain, 1 inbox order and 1 inbox. Move or delete them first.',
		})
		await deleteWorkspace(owner, workspaces.E)
		const left = await db
			.selectFrom('workspaces')
			.select('id')
			.where('id', '=', workspaces.E)
			.execute()
		expect(left).toHaveLength(0)
	})

	test('the list shows what each holds, only the allowed ones for a member', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await listWorkspaces(await contextOf(db, users.owner))
		expect(owner.canManage).toBe(true)
		expect(owner.workspaces.map((w) => [w.name, w.summary])).toEqual([
			['Empty', ''],
			['X', '1 lead list, 1 company list, 1 domain, 1 inbox order and 1 inbox'],
			['Y', ''],
		])
		const noX = await listWorkspaces(await contextOf(db, users.noX))
		expect(noX.workspaces.map((w) => w.id)).toEqual([workspaces.Y])
		expect((await listWorkspaces(await contextOf(db, users.editor))).canManage).toBe(false)
	})

	test("a workspace's counts are what a member limited to it sees, never the unassigned lists", async () => {
		const { users, workspaces } = await buildAccounts(db)
		// two lists of the account in no workspace
		for (const name of ['Loose 1', 'Loose 2'])
			await db
				.insertInto('processing_list')
				.values({ user_id: users.owner.id, name, source_type: 'upload' })
				.execute()
		const onlyX = await insertMember(db, users.owner, {
			role: 'editor',
			workspaceIds: [workspaces.X],
		})
		const member = await contextOf(db, onlyX)
		const seen = await listScrapeLists(member, workspaces.X)
		expect(seen.map((l) => l.workspaceId)).toEqual([workspaces.X, workspaces.X])
		const counted = (await listWorkspaces(await contextOf(db, users.owner))).workspaces.find(
			(w) => w.id === workspaces.X,
		)!
		expect(counted.contents.leadLists + counted.contents.companyLists).toBe(seen.length)
		// the member itself is told of what it can see: no domains or inboxes without their scope
		const asMember = (await listWorkspaces(member)).workspaces.find((w) => w.id === workspaces.X)!
		expect(asMember.summary).toBe('1 lead list and 1 company list')
		// the owner, in X, sees the unassigned lists too: the page labels them (scrape.tsx)
		const owner = await listScrapeLists(await contextOf(db, users.owner), workspaces.X)
		expect(
			owner
				.filter((l) => l.workspaceId === null)
				.map((l) => l.name)
				.sort(),
		).toEqual(['Loose 1', 'Loose 2'])
	})

	test('moving a list carries its leads; an inbox order carries its inboxes', async () => {
		const { users, workspaces, inX } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(await moveToWorkspace(owner, 'list', inX.list, workspaces.Y)).toMatchObject({
			moved: true,
		})
		const leads = await db
			.selectFrom('leads')
			.select('workspace_id')
			.where('list_id', '=', inX.list)
			.execute()
		expect(leads.map((l) => l.workspace_id)).toEqual([workspaces.Y])
		await moveToWorkspace(owner, 'inbox-order', inX.inboxOrder, workspaces.Y)
		const inboxes = await db
			.selectFrom('inboxes')
			.select('workspace_id')
			.where('order_id', '=', inX.inboxOrder)
			.execute()
		expect(inboxes.map((i) => i.workspace_id)).toEqual([workspaces.Y])
		await moveToWorkspace(owner, 'company-list', inX.companyList, workspaces.Y)
		await moveToWorkspace(owner, 'domain', inX.domain, workspaces.Y)
		const moved = await db
			.selectFrom('company_scraping_list')
			.select('workspace_id')
			.where('id', '=', inX.companyList)
			.unionAll(db.selectFrom('domains').select('workspace_id').where('id', '=', inX.domain))
			.execute()
		expect(moved.map((row) => row.workspace_id)).toEqual([workspaces.Y, workspaces.Y])
		// moving where it already is changes nothing
		expect(await moveToWorkspace(owner, 'list', inX.list, workspaces.Y)).toMatchObject({
			moved: false,
		})
	})

	test("a list's enrichment runs move with it: those who may use the new workspace see them, the others no longer", async () => {
		const { users, workspaces, inX } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const run = async (column: 'list_id' | 'company_list_id', listId: string, name: string) =>
			db
				.insertInto('enrichment_runs')
				.values({
					user_id: users.owner.id,
					[column]: listId,
					workspace_id: workspaces.X,
					name,
					steps: JSON.stringify([]),
					key_kind: 'ownKey',
					total: 10,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
		const leadRun = await run('list_id', inX.list, 'Openers')
		const companyRun = await run('company_list_id', inX.companyList, 'Company summaries')
		const onlyY = await loadAccountContext(db, users.noX)
		const runsOnDashboard = async (context: typeof onlyY, workspaceId: string) =>
			(await getDashboard(context, workspaceId)).jobs
				.filter((job) => job.id === leadRun.id || job.id === companyRun.id)
				.map((job) => job.name)
				.sort()
		const ownerContext = await loadAccountContext(db, users.owner)
		expect(await runsOnDashboard(ownerContext, workspaces.X)).toEqual([
			'Company summaries',
			'Openers',
		])
		expect(await runsOnDashboard(onlyY, workspaces.Y)).toEqual([])

		await moveToWorkspace(owner, 'list', inX.list, workspaces.Y)
		await moveToWorkspace(owner, 'company-list', inX.companyList, workspaces.Y)
		expect(await runsOnDashboard(onlyY, workspaces.Y)).toEqual(['Company summaries', 'Openers'])
		expect(await runsOnDashboard(ownerContext, workspaces.X)).toEqual([])
	})

	test('rows without a workspace are for those with access to all workspaces', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const list = await db
			.insertInto('processing_list')
			.values({ user_id: users.owner.id, name: 'Loose', source_type: 'upload' })
			.returning('id')
			.executeTakeFirstOrThrow()
		const { outcomeOf } = await import('../../../tests/support/team.ts')
		const editor = await contextOf(db, users.editor)
		expect(await outcomeOf(() => moveToWorkspace(editor, 'list', list.id, workspaces.X))).toBe('ok')
		const list2 = await db
			.insertInto('processing_list')
			.values({ user_id: users.owner.id, name: 'Loose 2', source_type: 'upload' })
			.returning('id')
			.executeTakeFirstOrThrow()
		const noX = await contextOf(db, users.noX)
		expect(await outcomeOf(() => moveToWorkspace(noX, 'list', list2.id, workspaces.Y))).toBe(404)
	})
})

describe('the current workspace', () => {
	function withCookie(setCookie?: string) {
		const headers = new Headers()
		if (setCookie) headers.set('Cookie', setCookie.split(';')[0]!)
		return new Request('http://localhost/', { headers })
	}

	test('remembered per user, checked against the allowed workspaces on every request', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const editor = await contextOf(db, users.editor)
		// none chosen: the first allowed one (by name)
		expect(await resolveCurrentWorkspaceId(withCookie(), editor)).toBe(editor.workspaces[0]!.id)
		const { setCookie } = await chooseWorkspace(withCookie(), editor, workspaces.X)
		expect(await resolveCurrentWorkspaceId(withCookie(setCookie), editor)).toBe(workspaces.X)
		// another user in the same browser does not inherit the choice
		const admin = await contextOf(db, users.admin)
		expect(await resolveCurrentWorkspaceId(withCookie(setCookie), admin)).toBe(
			admin.workspaces[0]!.id,
		)
		// narrowing the member's access: the next request falls back to an allowed workspace
		const owner = await contextOf(db, users.owner)
		await updateMember(owner, users.editor.memberId, {
			role: 'editor',
			accessAllWorkspaces: false,
			workspaceIds: [workspaces.Y],
			scopes: [],
		})
		const narrowed = await loadAccountContext(db, users.editor)
		expect(await resolveCurrentWorkspaceId(withCookie(setCookie), narrowed)).toBe(workspaces.Y)
	})

	test('a forged or tampered cookie is ignored', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const forged = `ls_workspace=${btoa(JSON.stringify({ [users.owner.id]: workspaces.Y }))}`
		const request = new Request('http://localhost/', { headers: { Cookie: forged } })
		expect(await resolveCurrentWorkspaceId(request, owner)).toBe(owner.workspaces[0]!.id)
		const none = await contextOf(db, { id: users.stranger.id, email: users.stranger.email })
		await insertWorkspace(db, users.stranger.id, 'Another')
		expect(await resolveCurrentWorkspaceId(request, none)).not.toBe(workspaces.Y)
	})
})
