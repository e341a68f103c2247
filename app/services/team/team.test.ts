import { createHash } from 'node:crypto'
import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import {
	buildAccounts,
	contextOf,
	insertMember,
	insertWorkspace,
	outcomeOf,
} from '../../../tests/support/team.ts'
import { loadAccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { acceptInvitation } from './accept-invitation.server.ts'
import { findInvitation } from './find-invitation.server.ts'
import { inviteMember } from './invite-member.server.ts'
import { removeMember } from './remove-member.server.ts'
import { resendInvitation } from './resend-invitation.server.ts'
import { revokeInvitation } from './revoke-invitation.server.ts'
import { TeamActionSchema } from './schemas.ts'
import { updateMember } from './update-member.server.ts'

const editorAll = {
	role: 'editor' as const,
	accessAllWorkspaces: true,
	workspaceIds: [],
	scopes: [],
}

async function latestMail(to: string) {
	return db
		.selectFrom('mailbox')
		.selectAll()
		.where('to_address', '=', to)
		.orderBy('created_at', 'desc')
		.executeTakeFirstOrThrow()
}

function tokenIn(text: string) {
	const match = text.match(/\/accept-invitation\?token=([A-Za-z0-9_-]+)/)
	expect(match).not.toBeNull()
	return match![1]!
}

async function formErrorOf(run: () => Promise<unknown>) {
	try {
		await run()
	} catch (error) {
		if (error instanceof FormError) return { field: error.field, message: error.message }
		throw error
	}
	throw new Error('expected a FormError')
}

function form(entries: [string, string][]) {
	const formData = new FormData()
	for (const [key, value] of entries) formData.append(key, value)
	return formData
}

describe('inviting', () => {
	test('mails a single-use link; only the sha256 of its token is stored, valid 7 days', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const email = 'New.Person@Example.com'
		const invited = await inviteMember(owner, {
			email,
			role: 'editor',
			accessAllWorkspaces: false,
			workspaceIds: [workspaces.X, workspaces.Y],
			scopes: ['domain-management:write'],
		})
		expect(invited).toMatchObject({ email: 'new.person@example.com', mailSent: true })
		const mail = await latestMail('new.person@example.com')
		expect(mail.subject).toContain('invited you to')
		expect(mail.text_body).toContain('with access to the workspaces X, Y')
		const token = tokenIn(mail.text_body)
		const row = await db
			.selectFrom('team_members')
			.selectAll()
			.where('id', '=', invited.id)
			.executeTakeFirstOrThrow()
		expect(row.invitation_token_hash).toBe(createHash('sha256').update(token).digest('hex'))
		expect(JSON.stringify(row)).not.toContain(token)
		expect(row.status).toBe('invited')
		// :write implies :read
		expect(row.scopes).toEqual(['domain-management:read', 'domain-management:write'])
		const days = (new Date(row.expires_at!).getTime() - Date.now()) / 86_400_000
		expect(days).toBeGreaterThan(6.99)
		expect(days).toBeLessThanOrEqual(7)
		const access = await db
			.selectFrom('team_member_workspace_acess')
			.select('workspace_id')
			.where('team_member_id', '=', invited.id)
			.execute()
		expect(access.map((a) => a.workspace_id).sort()).toEqual([workspaces.X, workspaces.Y].sort())
		expect(await findInvitation(token)).toMatchObject({
			state: 'valid',
			email: 'new.person@example.com',
			ownerEmail: users.owner.email,
			workspaces: ['X', 'Y'],
		})
	})

	test('admins are stored without scopes (their role gives all)', async () => {
		const { users } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const invited = await inviteMember(owner, {
			email: 'admin-to-be@example.com',
			...editorAll,
			role: 'admin',
			scopes: ['domain-management:read'],
		})
		const row = await db
			.selectFrom('team_members')
			.select('scopes')
			.where('id', '=', invited.id)
			.executeTakeFirstOrThrow()
		expect(row.scopes).toEqual([])
	})

	test('refuses your own email, a member, a pending invitation (any case)', async () => {
		const { users, invitation } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(
			await formErrorOf(() =>
				inviteMember(owner, { email: users.owner.email.toUpperCase(), ...editorAll }),
			),
		).toEqual({ field: 'email', message: 'That is your own email: invite someone else.' })
		expect(
			await formErrorOf(() => inviteMember(owner, { email: users.editor.email, ...editorAll })),
		).toEqual({
			field: 'email',
			message: `${users.editor.email} is already a member of your team.`,
		})
		expect(
			await formErrorOf(() =>
				inviteMember(owner, { email: invitation.email.toUpperCase(), ...editorAll }),
			),
		).toMatchObject({ field: 'email', message: expect.stringContaining('pending invitation') })
	})

	test('a workspace id of another account, or a malformed one, is a 404', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		for (const id of [workspaces.Z, 'not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
			expect(
				await outcomeOf(() =>
					inviteMember(owner, {
						email: 'someone@example.com',
						...editorAll,
						accessAllWorkspaces: false,
						workspaceIds: [workspaces.X, id],
					}),
				),
			).toBe(404)
		}
		expect(
			await db
				.selectFrom('team_members')
				.select('id')
				.where('email', '=', 'someone@example.com')
				.execute(),
		).toHaveLength(0)
	})

	test('the form schema refuses a malformed email, unknown roles and scopes', () => {
		const base: [string, string][] = [
			['intent', 'invite'],
			['access', 'all'],
		]
		const parse = (entries: [string, string][]) =>
			parseWithZod(form([...base, ...entries]), { schema: TeamActionSchema }).reply().error
		expect(
			parse([
				['email', 'not-an-email'],
				['role', 'editor'],
			]),
		).toMatchObject({
			email: ['Enter a valid email address'],
		})
		expect(
			parse([
				['email', 'a@example.com'],
				['role', 'owner'],
			]),
		).toMatchObject({
			role: ['Choose admin or editor'],
		})
		expect(
			parse([
				['email', 'a@example.com'],
				['role', 'editor'],
				['scopes', 'all'],
			]),
		).toMatchObject({ 'scopes[0]': ['Choose permissions from the list'] })
		expect(
			parse([
				['email', 'a@example.com'],
				['role', 'editor'],
				['scopes', 'billing:write'],
			]),
		).toMatchObject({ 'scopes[0]': ['Choose permissions from the list'] })
		expect(
			parseWithZod(
				form([
					['intent', 'invite'],
					['email', 'a@example.com'],
					['role', 'editor'],
					['access', 'selected'],
				]),
				{ schema: TeamActionSchema },
			).reply().error,
		).toMatchObject({ workspaceIds: ['Choose at least one workspace'] })
		expect(
			parseWithZod(
				form([
					['intent', 'invite'],
					['email', 'a@example.com'],
					['role', 'editor'],
					['access', 'everything'],
				]),
				{ schema: TeamActionSchema },
			).reply().error,
		).toMatchObject({ access: ['Choose which workspaces'] })
	})

	test('the database refuses a scope outside the grantable ones', async () => {
		const owner = await insertUser(db)
		await expect(
			db
				.insertInto('team_members')
				.values({ user_id: owner.id, email: 'x@example.com', role: 'editor', scopes: ['all'] })
				.execute(),
		).rejects.toThrow(/team_members_scopes_check/)
	})
})

describe('the invitation link', () => {
	async function invite() {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const invitee = await insertUser(db, { email: `invitee-${Date.now()}@example.com` })
		await inviteMember(owner, {
			email: invitee.email,
			role: 'editor',
			accessAllWorkspaces: false,
			workspaceIds: [workspaces.Y],
			scopes: [],
		})
		const token = tokenIn((await latestMail(invitee.email)).text_body)
		return { users, workspaces, owner, invitee, token }
	}

	test('unknown, expired, revoked and used tokens each have their state', async () => {
		expect(await findInvitation('x'.repeat(43))).toBeNull()
		expect(await findInvitation('short')).toBeNull()
		expect(await findInvitation(undefined)).toBeNull()

		const expired = await invite()
		await db
			.updateTable('team_members')
			.set({ expires_at: new Date(Date.now() - 1000) })
			.where('email', '=', expired.invitee.email)
			.execute()
		expect((await findInvitation(expired.token))?.state).toBe('expired')
		expect(await formErrorOf(() => acceptInvitation(expired.token, expired.invitee))).toMatchObject(
			{
				message: expect.stringContaining('expired'),
			},
		)

		const revoked = await invite()
		const pending = await db
			.selectFrom('team_members')
			.select('id')
			.where('email', '=', revoked.invitee.email)
			.executeTakeFirstOrThrow()
		await revokeInvitation(revoked.owner, pending.id)
		expect((await findInvitation(revoked.token))?.state).toBe('revoked')
		expect(await formErrorOf(() => acceptInvitation(revoked.token, revoked.invitee))).toMatchObject(
			{
				message: expect.stringContaining('revoked'),
			},
		)

		const used = await invite()
		await acceptInvitation(used.token, used.invitee)
		expect((await findInvitation(used.token))?.state).toBe('used')
		expect(await formErrorOf(() => acceptInvitation(used.token, used.invitee))).toMatchObject({
			message: expect.stringContaining('already been accepted'),
		})
	})

	test('accepting joins the owner account with only the allowed workspace', async () => {
		const { users, workspaces, invitee, token } = await invite()
		await acceptInvitation(token, invitee)
		const profile = await db
			.selectFrom('profiles')
			.select('primary_user_id')
			.where('user_id', '=', invitee.id)
			.executeTakeFirstOrThrow()
		expect(profile.primary_user_id).toBe(users.owner.id)
		const row = await db
			.selectFrom('team_members')
			.selectAll()
			.where('email', '=', invitee.email)
			.executeTakeFirstOrThrow()
		expect(row).toMatchObject({ status: 'active', member_user_id: invitee.id })
		expect(row.accepted_at).not.toBeNull()
		const context = await loadAccountContext(db, invitee)
		expect(context).toMatchObject({
			accountId: users.owner.id,
			isActiveTeamMember: true,
			teamRole: 'editor',
			activePlan: 2,
		})
		expect(context.workspaces.map((w) => w.id)).toEqual([workspaces.Y])
	})

	test('accepting creates the profile when it is missing', async () => {
		const { users, invitee, token } = await invite()
		await db.deleteFrom('profiles').where('user_id', '=', invitee.id).execute()
		await acceptInvitation(token, invitee)
		const profile = await db
			.selectFrom('profiles')
			.select('primary_user_id')
			.where('user_id', '=', invitee.id)
			.executeTakeFirstOrThrow()
		expect(profile.primary_user_id).toBe(users.owner.id)
	})

	test('the email must match; one team at a time; not while owning a team', async () => {
		const { invitee, token } = await invite()
		const other = await insertUser(db)
		expect(await formErrorOf(() => acceptInvitation(token, other))).toEqual({
			field: 'email',
			message: `This invitation is for ${invitee.email}. Use that address, the one it was sent to.`,
		})
		// already a member of another team
		const elsewhere = await insertUser(db)
		await insertMember(db, elsewhere, { user: invitee })
		expect(await formErrorOf(() => acceptInvitation(token, invitee))).toMatchObject({
			message: expect.stringContaining('already a member of another team'),
		})
		expect((await findInvitation(token))?.state).toBe('valid')
		await db.deleteFrom('team_members').where('member_user_id', '=', invitee.id).execute()
		// owning a team of one's own
		await insertMember(db, invitee)
		expect(await formErrorOf(() => acceptInvitation(token, invitee))).toMatchObject({
			message: expect.stringContaining('You have a team of your own'),
		})
	})

	test('resending replaces the token and the expiry', async () => {
		const { owner, invitee, token } = await invite()
		const row = await db
			.selectFrom('team_members')
			.select(['id', 'expires_at'])
			.where('email', '=', invitee.email)
			.executeTakeFirstOrThrow()
		await db
			.updateTable('team_members')
			.set({ expires_at: new Date(Date.now() - 1000) })
			.where('id', '=', row.id)
			.execute()
		await resendInvitation(owner, row.id)
		const next = tokenIn((await latestMail(invitee.email)).text_body)
		expect(next).not.toBe(token)
		expect(await findInvitation(token)).toBeNull()
		expect((await findInvitation(next))?.state).toBe('valid')
	})
})

describe('members', () => {
	test('narrowing access and changing the role take effect on the next context load', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		const before = await loadAccountContext(db, users.editorWrite)
		expect(before.workspaces.map((w) => w.id)).toContain(workspaces.X)
		expect(before.scopes).toContain('domain-management:write')
		await updateMember(owner, users.editorWrite.memberId, {
			role: 'editor',
			accessAllWorkspaces: false,
			workspaceIds: [workspaces.Y],
			scopes: ['domain-management:read'],
		})
		const after = await loadAccountContext(db, users.editorWrite)
		expect(after.workspaces.map((w) => w.id)).toEqual([workspaces.Y])
		expect(after.scopes).toEqual(['domain-management:read'])
		await updateMember(owner, users.editorWrite.memberId, { ...editorAll, role: 'admin' })
		const admin = await loadAccountContext(db, users.editorWrite)
		expect(admin).toMatchObject({ teamRole: 'admin', scopes: ['all'], accessAllWorkspaces: true })
	})

	test('editing with another account workspace id is a 404 and changes nothing', async () => {
		const { users, workspaces } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		expect(
			await outcomeOf(() =>
				updateMember(owner, users.editor.memberId, {
					...editorAll,
					accessAllWorkspaces: false,
					workspaceIds: [workspaces.Z],
				}),
			),
		).toBe(404)
		const row = await db
			.selectFrom('team_members')
			.select('access_all_workspaces')
			.where('id', '=', users.editor.memberId)
			.executeTakeFirstOrThrow()
		expect(row.access_all_workspaces).toBe(true)
	})

	test('removing a member sends it back to its own account on its next request', async () => {
		const { users } = await buildAccounts(db)
		const owner = await contextOf(db, users.owner)
		await removeMember(owner, users.editor.memberId)
		const context = await loadAccountContext(db, users.editor)
		expect(context).toMatchObject({
			accountId: users.editor.id,
			isTeamMember: false,
			primaryUserId: null,
			activePlan: 0,
		})
		// and it can be invited again
		await inviteMember(owner, { email: users.editor.email, ...editorAll })
	})

	test('a limited admin gets access to the workspace it creates', async () => {
		const { users } = await buildAccounts(db)
		const { createWorkspace } = await import('../workspaces/create-workspace.server.ts')
		const noX = await contextOf(db, users.noX)
		const created = await createWorkspace(noX, { name: 'Made by admin' })
		const again = await loadAccountContext(db, users.noX)
		expect(again.workspaces.map((w) => w.id)).toContain(created.id)
		const other = await insertWorkspace(db, users.owner.id, 'Not theirs')
		expect((await loadAccountContext(db, users.noX)).workspaces.map((w) => w.id)).not.toContain(
			other,
		)
	})
})
