import { db } from '../../../db/index.server.ts'
import { isUuid } from '../../utils/http-errors.server.ts'
import type { BulkHandler } from '../bulk/types.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import { resendInvitation } from './resend-invitation.server.ts'
import { revokeInvitation } from './revoke-invitation.server.ts'

/** The account's team rows (invitations and members); another account's are never read. */
function teamRows(accountId: string) {
	return db
		.selectFrom('team_members')
		.select(['id', 'email as name'])
		.where('user_id', '=', accountId)
}

const pending = (accountId: string) => teamRows(accountId).where('status', '=', 'invited')

const NOT_PENDING = 'not a pending invitation (accepted or revoked)'

/** Accepted or revoked since it was ticked: told as such rather than as a missing row. */
async function isPending(accountId: string, id: string) {
	return Boolean(await pending(accountId).where('id', '=', id).executeTakeFirst())
}

/**
 * Bulk resend and revoke of pending invitations (issue 34): each row goes through the single
 * row's service, so the owner-only rule, the hourly mail limit and the new link are the same.
 */
export const invitationBulk: BulkHandler = {
	kind: 'invitations',
	authorize: (account) => assertCanManageTeam(actingAccount(account)),
	async owned(account, ids) {
		const valid = ids.filter(isUuid)
		if (valid.length === 0) return []
		return teamRows(actingAccount(account).accountId).where('id', 'in', valid).execute()
	},
	async matching(account, _filter, afterId, limit) {
		return pending(actingAccount(account).accountId)
			.$if(afterId !== null, (q) => q.where('id', '>', afterId!))
			.orderBy('id')
			.limit(limit)
			.execute()
	},
	async count(account) {
		const row = await db
			.selectFrom('team_members')
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.where('user_id', '=', actingAccount(account).accountId)
			.where('status', '=', 'invited')
			.executeTakeFirstOrThrow()
		return Number(row.n)
	},
	actions: {
		resend: {
			label: 'Resend',
			async run(account, row) {
				if (!(await isPending(actingAccount(account).accountId, row.id)))
					return { skipped: NOT_PENDING }
				const sent = await resendInvitation(actingAccount(account), row.id)
				return sent.mailSent ? 'done' : { skipped: 'the email could not be sent; try again' }
			},
		},
		revoke: {
			label: 'Revoke',
			async run(account, row) {
				if (!(await isPending(actingAccount(account).accountId, row.id)))
					return { skipped: NOT_PENDING }
				await revokeInvitation(actingAccount(account), row.id)
				return 'done'
			},
		},
	},
}
