import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'

const WINDOW_SECONDS = 3600

/**
 * Counts one invitation mail (invite or resend) for the account; past TEAM_INVITATIONS_PER_HOUR
 * in the current hour it throws a 429 FormError instead, so an account cannot use the team
 * page to mail-bomb addresses. One atomic upsert (fixed window), shared by every process.
 */
export async function takeInvitationMail(accountId: string, field: string | null) {
	const now = new Date()
	const expired = new Date(now.getTime() - WINDOW_SECONDS * 1000)
	const row = await db
		.insertInto('team_invitation_limits')
		.values({ account_id: accountId, mails: 1, window_start: now })
		.onConflict((oc) =>
			oc.column('account_id').doUpdateSet({
				mails: sql`case when team_invitation_limits.window_start <= ${expired} then 1 else team_invitation_limits.mails + 1 end`,
				window_start: sql`case when team_invitation_limits.window_start <= ${expired} then ${now}::timestamptz else team_invitation_limits.window_start end`,
			}),
		)
		.returning(['mails', 'window_start'])
		.executeTakeFirstOrThrow()
	if (row.mails <= getConfig().TEAM_INVITATIONS_PER_HOUR) return
	const minutes = Math.max(
		1,
		Math.ceil((row.window_start.getTime() + WINDOW_SECONDS * 1000 - now.getTime()) / 60_000),
	)
	throw new FormError(
		`Too many invitations sent in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
		field,
		429,
	)
}
