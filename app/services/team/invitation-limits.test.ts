// Invitation mails (invites and resends) are limited per account and hour: past the limit the
// owner gets a message (429) and nothing is written or mailed.
import { RouterContextProvider } from 'react-router'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { contextOf } from '../../../tests/support/team.ts'
import { requestContext, type AccountContext } from '../../context.server.ts'
import * as teamMembers from '../../routes/team-members.tsx'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { inviteMember } from './invite-member.server.ts'
import { resendInvitation } from './resend-invitation.server.ts'

const editorAll = {
	role: 'editor' as const,
	accessAllWorkspaces: true,
	workspaceIds: [],
	scopes: [],
}

beforeAll(() => {
	process.env.TEAM_INVITATIONS_PER_HOUR = '3'
	resetSingleton('config')
})

async function refusal(run: () => Promise<unknown>) {
	try {
		await run()
	} catch (error) {
		if (error instanceof FormError)
			return { field: error.field, status: error.status, message: error.message }
		throw error
	}
	throw new Error('expected a FormError')
}

const mailsTo = async (to: string) =>
	(await db.selectFrom('mailbox').select('id').where('to_address', '=', to).execute()).length

describe('invitation mails per account and hour', () => {
	test('invites and resends share the limit; past it nothing is written or mailed', async () => {
		const owner = await insertUser(db)
		const account = await contextOf(db, owner)
		const first = await inviteMember(account, { email: `a-${owner.id}@example.com`, ...editorAll })
		await inviteMember(account, { email: `b-${owner.id}@example.com`, ...editorAll })
		await resendInvitation(account, first.id)

		const blockedEmail = `c-${owner.id}@example.com`
		expect(
			await refusal(() => inviteMember(account, { email: blockedEmail, ...editorAll })),
		).toEqual({
			field: 'email',
			status: 429,
			message: 'Too many invitations sent in the last hour. Try again in 60 minutes.',
		})
		const rows = await db
			.selectFrom('team_members')
			.select('email')
			.where('user_id', '=', owner.id)
			.execute()
		expect(rows.map((r) => r.email).sort()).toEqual([
			`a-${owner.id}@example.com`,
			`b-${owner.id}@example.com`,
		])
		expect(await mailsTo(blockedEmail)).toBe(0)

		// a refused resend keeps the link already sent
		const before = await db
			.selectFrom('team_members')
			.select(['invitation_token_hash', 'expires_at'])
			.where('id', '=', first.id)
			.executeTakeFirstOrThrow()
		const mailsBefore = await mailsTo(first.email)
		expect(await refusal(() => resendInvitation(account, first.id))).toMatchObject({
			field: null,
			status: 429,
		})
		const after = await db
			.selectFrom('team_members')
			.select(['invitation_token_hash', 'expires_at'])
			.where('id', '=', first.id)
			.executeTakeFirstOrThrow()
		expect(after).toEqual(before)
		expect(await mailsTo(first.email)).toBe(mailsBefore)
	})

	test('the limit is per account, and a new hour starts it again', async () => {
		const busy = await insertUser(db)
		const busyAccount = await contextOf(db, busy)
		for (const label of ['a', 'b', 'c'])
			await inviteMember(busyAccount, { email: `${label}-${busy.id}@example.com`, ...editorAll })
		expect(
			(
				await refusal(() =>
					inviteMember(busyAccount, { email: `d-${busy.id}@example.com`, ...editorAll }),
				)
			).status,
		).toBe(429)

		const other = await insertUser(db)
		const invited = await inviteMember(await contextOf(db, other), {
			email: `a-${other.id}@example.com`,
			...editorAll,
		})
		expect(invited.mailSent).toBe(true)

		// the window started more than an hour ago: counting starts afresh
		await db
			.updateTable('team_invitation_limits')
			.set({ window_start: new Date(Date.now() - 3601_000) })
			.where('account_id', '=', busy.id)
			.execute()
		const later = await inviteMember(busyAccount, {
			email: `d-${busy.id}@example.com`,
			...editorAll,
		})
		expect(later.mailSent).toBe(true)
	})
})

/** The /team-members action as the server calls it for a posted form. */
async function post(account: AccountContext, form: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, {
		account,
		responseHeaders: new Headers(),
		supabase: null as never,
		currentWorkspaceId: null,
	})
	const request = new Request('http://localhost/team-members', {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	const result = (await teamMembers.action({ request, context, params: {} } as never)) as unknown
	if (result instanceof Response) return { status: result.status, data: null }
	const { data, init } = result as { data: any; init: ResponseInit | null }
	return { status: init?.status ?? 200, data }
}

describe('/team-members past the limit', () => {
	test('invite: 429 with the message at the email field; resend: at its row', async () => {
		const owner = await insertUser(db)
		const account = await contextOf(db, owner)
		const invite = (email: string) =>
			post(account, { intent: 'invite', email, role: 'editor', access: 'all' })
		const first = await invite(`a-${owner.id}@example.com`)
		expect(first.status).toBe(302)
		await invite(`b-${owner.id}@example.com`)
		await invite(`c-${owner.id}@example.com`)
		const refused = await invite(`d-${owner.id}@example.com`)
		expect(refused.status).toBe(429)
		expect(refused.data.intent).toBe('invite')
		expect(refused.data.result.error.email).toEqual([
			'Too many invitations sent in the last hour. Try again in 60 minutes.',
		])

		const pending = await db
			.selectFrom('team_members')
			.select('id')
			.where('user_id', '=', owner.id)
			.orderBy('created_at')
			.executeTakeFirstOrThrow()
		const resend = await post(account, { intent: 'resend', memberId: pending.id })
		expect(resend.status).toBe(429)
		expect(resend.data).toMatchObject({ intent: 'resend', memberId: pending.id })
		expect(resend.data.result.error['']).toEqual([
			'Too many invitations sent in the last hour. Try again in 60 minutes.',
		])
	})
})
