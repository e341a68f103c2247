import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { findWorkspaces } from '../workspaces/find-workspace.server.ts'
import { assertCanManageTeam } from './access.server.ts'
import { newInvitationToken } from './invitation-token.server.ts'
import { takeInvitationMail } from './limit-invitation-mails.server.ts'
import { saveWorkspaceAccess, storedScopes } from './member-access.server.ts'
import type { MemberAccess } from './schemas.ts'
import { describeOwner, sendInvitationMail } from './send-invitation-mail.server.ts'

async function assertNotOnTeam(accountId: string, email: string) {
	const existing = await db
		.selectFrom('team_members')
		.select('status')
		.where('user_id', '=', accountId)
		.where(sql`lower(email)`, '=', email.toLowerCase())
		.where('status', '<>', 'revoked')
		.executeTakeFirst()
	if (existing?.status === 'active') {
		throw new FormError(`${email} is already a member of your team.`, 'email')
	}
	if (existing) {
		throw new FormError(
			`${email} already has a pending invitation. Resend it from the list below.`,
			'email',
		)
	}
}

/**
 * Invites someone by email into the owner's account with a role, workspace access and
 * (for editors) scopes, and mails a single-use link that expires in 7 days.
 * Workspace ids outside the account are a 404; a non-owner is refused (403).
 */
export async function inviteMember(
	account: ActingAccount,
	input: MemberAccess & { email: string },
) {
	const workspaces = await findWorkspaces(account, input.workspaceIds)
	assertCanManageTeam(account)
	const email = input.email.trim().toLowerCase()
	if (email === account.user.email.toLowerCase()) {
		throw new FormError('That is your own email: invite someone else.', 'email')
	}
	await assertNotOnTeam(account.accountId, email)
	// past the hourly limit nothing is written and no mail goes out
	await takeInvitationMail(account.accountId, 'email')
	const { token, hash, expiresAt } = newInvitationToken()
	let memberId: string
	try {
		memberId = await db.transaction().execute(async (trx) => {
			const row = await trx
				.insertInto('team_members')
				.values({
					user_id: account.accountId,
					email,
					role: input.role,
					access_all_workspaces: input.accessAllWorkspaces,
					scopes: storedScopes(input),
					status: 'invited',
					invitation_token_hash: hash,
					expires_at: expiresAt,
					last_sent_at: new Date(),
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			if (!input.accessAllWorkspaces) {
				await saveWorkspaceAccess(
					trx,
					row.id,
					workspaces.map((w) => w.id),
				)
			}
			return row.id
		})
	} catch (error) {
		// a second invitation for the same email raced this one
		if ((error as { code?: string }).code === '23505')
			await assertNotOnTeam(account.accountId, email)
		throw error
	}
	const mailSent = await sendInvitationMail({
		to: email,
		owner: await describeOwner(account.user.id, account.user.email),
		role: input.role,
		workspaces: input.accessAllWorkspaces ? 'all' : workspaces.map((w) => w.name).sort(),
		token,
		expiresAt,
	})
	return { id: memberId, email, mailSent }
}
