import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertInvitation, insertMember } from '../../../tests/support/team.ts'
import { loadAccountContext } from '../../context.server.ts'
import {
	findBulkAction,
	NOT_YOURS,
	runBulkAction,
	startBulkAction,
} from '../bulk/bulk-actions.server.ts'
import { newFormKey, oncePerSubmission } from '../idempotency/form-submissions.server.ts'
import { invitationBulk } from './bulk.server.ts'

// Issue 34: pending invitations are resent or revoked in bulk by the owner; another account's
// invitations and accepted members are skipped and reported, never touched.

async function owner() {
	const user = await insertUser(db)
	return { user, account: await loadAccountContext(db, user) }
}

async function invitation(id: string) {
	return db
		.selectFrom('team_members')
		.select(['status', 'last_sent_at', 'invitation_token_hash'])
		.where('id', '=', id)
		.executeTakeFirstOrThrow()
}

async function run(
	account: Awaited<ReturnType<typeof owner>>['account'],
	action: string,
	ids: string[],
) {
	const bulk = await startBulkAction(account, invitationBulk, { action, selection: { ids } })
	await runBulkAction(bulk.id, [invitationBulk])
	return findBulkAction(account, bulk.id)
}

describe('bulk actions on invitations', () => {
	test('revoke: my pending invitations; theirs and an accepted member skipped and untouched', async () => {
		const me = await owner()
		const them = await owner()
		const [a, b] = [await insertInvitation(db, me.user), await insertInvitation(db, me.user)]
		const member = await insertMember(db, me.user, { role: 'editor' })
		const theirs = await insertInvitation(db, them.user)
		const result = await run(me.account, 'revoke', [a.id, b.id, member.memberId, theirs.id])
		expect(result).toMatchObject({ status: 'done', total: 4, done: 2, skipped: 2 })
		expect(result.notes.map((n) => n.reason).sort()).toEqual(
			[NOT_YOURS, 'not a pending invitation (accepted or revoked)'].sort(),
		)
		expect((await invitation(a.id)).status).toBe('revoked')
		expect((await invitation(b.id)).status).toBe('revoked')
		expect((await invitation(member.memberId)).status).toBe('active')
		expect((await invitation(theirs.id)).status).toBe('invited')
	})

	test('resend: a new link and a mail for mine; theirs not mailed', async () => {
		const me = await owner()
		const them = await owner()
		const mine = await insertInvitation(db, me.user, { hash: 'old-hash' })
		const theirs = await insertInvitation(db, them.user, { hash: 'their-hash' })
		const result = await run(me.account, 'resend', [mine.id, theirs.id])
		expect(result).toMatchObject({ done: 1, skipped: 1 })
		expect((await invitation(mine.id)).invitation_token_hash).not.toBe('old-hash')
		expect(await invitation(theirs.id)).toMatchObject({
			invitation_token_hash: 'their-hash',
			last_sent_at: null,
		})
		const mails = await db
			.selectFrom('mailbox')
			.select('to_address')
			.where('to_address', 'in', [mine.email, theirs.email])
			.execute()
		expect(mails.map((m) => m.to_address)).toEqual([mine.email])
	})

	test('a member (not the owner) may not start one', async () => {
		const me = await owner()
		const member = await insertMember(db, me.user, { role: 'admin' })
		const a = await insertInvitation(db, me.user)
		const account = await loadAccountContext(db, member)
		await expect(
			startBulkAction(account, invitationBulk, { action: 'revoke', selection: { ids: [a.id] } }),
		).rejects.toMatchObject({ init: { status: 403 } })
		expect((await invitation(a.id)).status).toBe('invited')
	})

	test('a double submit starts one bulk action and one job', async () => {
		const me = await owner()
		const ids = [(await insertInvitation(db, me.user)).id]
		const formData = new FormData()
		formData.set('idempotencyKey', newFormKey())
		formData.set('action', 'revoke')
		for (const id of ids) formData.append('ids', id)
		const submit = () =>
			oncePerSubmission({ accountId: me.user.id, form: 'invitations-bulk', formData }, (trx) =>
				startBulkAction(me.account, invitationBulk, { action: 'revoke', selection: { ids } }, trx),
			)
		const [first, second] = await Promise.all([submit(), submit()])
		expect(second.id).toBe(first.id)
		const { rows } = await sql<{ n: string }>`
			select count(*) as n from pgboss.job where name = 'bulk-action' and data->>'bulkId' = ${first.id}`.execute(
			db,
		)
		expect(Number(rows[0]!.n)).toBe(1)
		expect(
			await db.selectFrom('bulk_actions').select('id').where('user_id', '=', me.user.id).execute(),
		).toHaveLength(1)
	})
})
