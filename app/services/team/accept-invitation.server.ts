import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { findInvitation, type Invitation, type InvitationState } from './find-invitation.server.ts'

export const INVITATION_MESSAGES: Record<Exclude<InvitationState, 'valid'> | 'unknown', string> = {
	unknown:
		'This invitation link is not valid. Check that you opened the whole link; if you were sent a newer invitation, use the link in the latest email.',
	expired:
		'This invitation has expired: invitations are valid for 7 days. Ask the account owner to send it again.',
	revoked:
		'This invitation was revoked by the account owner. Ask them for a new one if you still need access.',
	used: 'This invitation has already been accepted. Sign in to continue.',
}

/** The invitation for a link, when it can still be accepted; else a FormError saying why. */
export async function usableInvitation(token: unknown): Promise<Invitation> {
	const invitation = await findInvitation(token)
	if (!invitation) throw new FormError(INVITATION_MESSAGES.unknown)
	if (invitation.state !== 'valid') throw new FormError(INVITATION_MESSAGES[invitation.state])
	return invitation
}

export function assertInvitedEmail(invitation: Invitation, email: string) {
	if (email.trim().toLowerCase() !== invitation.email.toLowerCase()) {
		throw new FormError(
			`This invitation is for ${invitation.email}. Use that address, the one it was sent to.`,
			'email',
		)
	}
}

/**
 * Joins the owner's account: the member becomes active (member_user_id, accepted_at)
 * and the user's profile points to the owner (created when missing). Single use: the
 * row is locked, and a used, revoked or expired invitation is refused.
 */
export async function acceptInvitation(token: unknown, user: { id: string; email: string }) {
	const invitation = await usableInvitation(token)
	assertInvitedEmail(invitation, user.email)
	if (user.id === invitation.ownerId) throw new FormError('You cannot join your own team.')
	await db.transaction().execute(async (trx) => {
		const row = await trx
			.selectFrom('team_members')
			.select(['status', 'accepted_at', sql<boolean>`expires_at < now()`.as('expired')])
			.where('id', '=', invitation.id)
			.forUpdate()
			.executeTakeFirstOrThrow()
		// another request may have got here first
		if (row.status === 'revoked') throw new FormError(INVITATION_MESSAGES.revoked)
		if (row.status !== 'invited' || row.accepted_at) throw new FormError(INVITATION_MESSAGES.used)
		if (row.expired) throw new FormError(INVITATION_MESSAGES.expired)
		const elsewhere = await trx
			.selectFrom('team_members')
			.select('id')
			.where('member_user_id', '=', user.id)
			.where('status', '=', 'active')
			.executeTakeFirst()
		if (elsewhere) {
			throw new FormError(
				'You are already a member of another team. Ask its owner to remove you, then open this link again.',
			)
		}
		const ownTeam = await trx
			.selectFrom('team_members')
			.select('id')
			.where('user_id', '=', user.id)
			.where('status', 'in', ['invited', 'active'])
			.executeTakeFirst()
		if (ownTeam) {
			throw new FormError(
				'You have a team of your own. Remove its members and revoke its invitations before joining another team.',
			)
		}
		await trx
			.updateTable('team_members')
			.set({
				member_user_id: user.id,
				status: 'active',
				accepted_at: new Date(),
				updated_at: new Date(),
			})
			.where('id', '=', invitation.id)
			.execute()
		await trx
			.insertInto('profiles')
			.values({ user_id: user.id, primary_user_id: invitation.ownerId })
			.onConflict((oc) =>
				oc
					.column('user_id')
					.doUpdateSet({ primary_user_id: invitation.ownerId, updated_at: new Date() }),
			)
			.execute()
	})
	return invitation
}
