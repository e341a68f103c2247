import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { getMailer } from '../mail/mailer.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { invitationUrl } from './invitation-token.server.ts'
import { ROLE_LABELS, type TeamRoleName } from './schemas.ts'

/** The owner as the invitation names them: 'Ada Lovelace (ada@example.com)' or the email. */
export async function describeOwner(ownerId: string, ownerEmail: string) {
	const profile = await db
		.selectFrom('profiles')
		.select('full_name')
		.where('user_id', '=', ownerId)
		.executeTakeFirst()
	const name = profile?.full_name?.trim()
	return name ? `${name} (${ownerEmail})` : ownerEmail
}

function escapeHtml(text: string) {
	return text.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
	)
}

/**
 * The invitation mail, through the mailer (SMTP, or the local mailbox). The link is the
 * first one in it. Returns false when it could not be sent (the invitation stays; resend).
 */
export async function sendInvitationMail(mail: {
	to: string
	owner: string
	role: TeamRoleName
	workspaces: string[] | 'all'
	token: string
	expiresAt: Date
}): Promise<boolean> {
	const { APP_NAME } = getConfig()
	const url = invitationUrl(mail.token)
	const access =
		mail.workspaces === 'all' ? 'all workspaces' : `the workspaces ${mail.workspaces.join(', ')}`
	const role = ROLE_LABELS[mail.role].toLowerCase()
	const expires = mail.expiresAt.toUTCString()
	const text = [
		`${mail.owner} invited you to join their team on ${APP_NAME} as ${role === 'admin' ? 'an admin' : 'an editor'}, with access to ${access}.`,
		'',
		`Accept the invitation: ${url}`,
		'',
		`The link works once and expires on ${expires}. If you were not expecting this invitation, you can ignore this email.`,
	].join('\n')
	const html = `<p>${escapeHtml(mail.owner)} invited you to join their team on ${escapeHtml(APP_NAME)} as ${role === 'admin' ? 'an admin' : 'an editor'}, with access to ${escapeHtml(access)}.</p>
<p><a href="${escapeHtml(url)}">Accept the invitation</a></p>
<p>The link works once and expires on ${escapeHtml(expires)}. If you were not expecting this invitation, you can ignore this email.</p>`
	try {
		await getMailer().send({
			to: mail.to,
			subject: `${mail.owner} invited you to ${APP_NAME}`,
			text,
			html,
		})
		return true
	} catch (error) {
		logger.error({ err: error }, 'invitation mail failed')
		return false
	}
}
