import type { Mail } from '../services/mail/mailer.server.ts'

export type MailKind =
	| 'signup'
	| 'invite'
	| 'magiclink'
	| 'recovery'
	| 'email_change_new'
	| 'email_change_current'
	| 'email_changed'
	| 'account_exists'
	| 'reauthentication'

type MailInput = {
	appName: string
	to: string
	link?: string
	otp?: string
	/** link lifetime, for the "expires" line */
	expiresInSeconds?: number
	oldEmail?: string
	newEmail?: string
	/** an email change confirmed from both addresses (AUTH_SECURE_EMAIL_CHANGE) */
	bothAddresses?: boolean
}

function duration(seconds: number) {
	if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`
	if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`
	return `${seconds} seconds`
}

function escapeHtml(value: string) {
	return value.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
	)
}

type Template = {
	subject: string
	intro: string
	action?: string
	outro: string
}

function template(kind: MailKind, input: MailInput): Template {
	const app = input.appName
	switch (kind) {
		case 'signup':
			return {
				subject: `Confirm your ${app} account`,
				intro: `Welcome to ${app}! Confirm your email address to finish creating your account.`,
				action: 'Confirm my email address',
				outro: `If you did not sign up for ${app}, you can ignore this email.`,
			}
		case 'invite':
			return {
				subject: `You have been invited to ${app}`,
				intro: `You have been invited to create an account on ${app}. Accept the invitation to get started.`,
				action: 'Accept the invitation',
				outro: `If you were not expecting this invitation, you can ignore this email.`,
			}
		case 'magiclink':
			return {
				subject: `Your ${app} sign-in link`,
				intro: `Use this link to sign in to ${app}.`,
				action: `Sign in to ${app}`,
				outro: `If you did not ask to sign in, you can ignore this email: nobody can sign in without this link.`,
			}
		case 'recovery':
			return {
				subject: `Reset your ${app} password`,
				intro: `Someone asked to reset the password of your ${app} account. Use this link to choose a new password.`,
				action: 'Choose a new password',
				outro: `If you did not ask for a password reset, you can ignore this email: your password stays unchanged.`,
			}
		case 'email_change_new': {
			const both = input.bothAddresses && input.oldEmail
			return {
				subject: `Confirm your new email address for ${app}`,
				intro:
					`Confirm that you want to use ${input.to} as the email address of your ${app} account${input.oldEmail ? ` (instead of ${input.oldEmail})` : ''}.` +
					(both
						? ` We also sent a link to ${input.oldEmail}: the address changes once both links are used.`
						: ''),
				action: 'Confirm the new address',
				outro: `If you did not ask for this change, you can ignore this email: nothing changes until the link is used.`,
			}
		}
		case 'email_change_current':
			return {
				subject: `Confirm the change of your ${app} email address`,
				intro: `Someone asked to change the email address of your ${app} account from ${input.to} to ${input.newEmail ?? ''}. If it was you, confirm from this address too: the address changes once the links sent to both addresses are used.`,
				action: 'Confirm the change',
				outro: `If you did not ask for this change, do not use the link: your address stays ${input.to}. Someone may know your password, so change it.`,
			}
		case 'account_exists':
			return {
				subject: `Someone tried to sign up to ${app} with your address`,
				intro: `Someone tried to create a ${app} account with ${input.to}, which already has one. If it was you, sign in; if you forgot your password, reset it from the sign-in page.`,
				action: `Sign in to ${app}`,
				outro: `If it was not you, you can ignore this email: your account is unchanged.`,
			}
		case 'reauthentication':
			return {
				subject: `Confirm it is you on ${app}`,
				intro: `Enter this code in ${app} to confirm it is you before your password changes.`,
				outro: `If you did not ask for this, you can ignore this email: nothing changes without the code.`,
			}
		case 'email_changed':
			return {
				subject: `Your ${app} email address was changed`,
				intro: `The email address of your ${app} account was changed from ${input.oldEmail ?? input.to} to ${input.newEmail ?? ''}.`,
				outro: `If you did not make this change, contact support right away.`,
			}
	}
}

/** The product text of an auth email, as plain text and HTML. */
export function renderMail(kind: MailKind, input: MailInput): Mail {
	const t = template(kind, input)
	const expires = input.expiresInSeconds
		? `The link and code expire in ${duration(input.expiresInSeconds)}.`
		: ''
	const text = [
		t.intro,
		input.link && t.action ? `${t.action}:\n${input.link}` : '',
		input.otp ? `Or enter this code: ${input.otp}` : '',
		input.link ? expires : '',
		t.outro,
		`— ${input.appName}`,
	]
		.filter(Boolean)
		.join('\n\n')
	const html = [
		`<p>${escapeHtml(t.intro)}</p>`,
		input.link && t.action
			? `<p><a href="${escapeHtml(input.link)}" style="display:inline-block;padding:10px 16px;background:#111827;color:#ffffff;border-radius:6px;text-decoration:none">${escapeHtml(t.action)}</a></p>`
			: '',
		input.otp ? `<p>Or enter this code: <strong>${escapeHtml(input.otp)}</strong></p>` : '',
		input.link && expires ? `<p>${escapeHtml(expires)}</p>` : '',
		`<p>${escapeHtml(t.outro)}</p>`,
		`<p>— ${escapeHtml(input.appName)}</p>`,
	]
		.filter(Boolean)
		.join('\n')
	return { to: input.to, subject: t.subject, text, html }
}
