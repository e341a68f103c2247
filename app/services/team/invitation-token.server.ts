import { createHash, randomBytes } from 'node:crypto'
import { getConfig } from '../../config.server.ts'

/** Invitations are valid for a week. */
export const INVITATION_DAYS = 7

/** A single-use token for the link; only its sha256 is stored. */
export function newInvitationToken(now = new Date()) {
	const token = randomBytes(32).toString('base64url')
	return {
		token,
		hash: hashInvitationToken(token),
		expiresAt: new Date(now.getTime() + INVITATION_DAYS * 86_400_000),
	}
}

export function hashInvitationToken(token: string) {
	return createHash('sha256').update(token).digest('hex')
}

/** A token as newInvitationToken makes it (43 base64url characters); anything else is unknown. */
export function isWellFormedToken(token: unknown): token is string {
	return typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token)
}

export function invitationUrl(token: string) {
	return `${getConfig().APP_URL}/accept-invitation?token=${token}`
}
