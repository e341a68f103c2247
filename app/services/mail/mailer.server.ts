import type { Transporter } from 'nodemailer'
import type { Config } from '../../config.server.ts'
import { db as processDb, type Database } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { singleton } from '../../utils/singleton.server.ts'

export type Mail = { to: string; subject: string; text: string; html?: string }
export type Mailer = { send(mail: Mail): Promise<void> }

/**
 * SMTP (nodemailer) when SMTP_URL is set; otherwise each mail becomes a row of the
 * `mailbox` table, which /dev/mailbox shows to signed-in platform admins and tests read.
 */
export function createMailer(config: Config, db: Database): Mailer {
	const smtpUrl = config.SMTP_URL
	if (smtpUrl) {
		// nodemailer is loaded with the first mail, not with every page (decision 0055)
		let transport: Promise<Transporter> | undefined
		return {
			async send(mail) {
				transport ??= import('nodemailer').then(({ default: nodemailer }) =>
					nodemailer.createTransport(smtpUrl),
				)
				await (
					await transport
				).sendMail({
					from: config.MAIL_FROM,
					to: mail.to,
					subject: mail.subject,
					text: mail.text,
					...(mail.html ? { html: mail.html } : {}),
				})
			},
		}
	}
	return {
		async send(mail) {
			await db
				.insertInto('mailbox')
				.values({
					to_address: mail.to,
					subject: mail.subject,
					text_body: mail.text,
					html_body: mail.html ?? null,
				})
				.execute()
		},
	}
}

/** The mailer of this process. */
export function getMailer(): Mailer {
	return singleton('mailer', () => createMailer(getConfig(), processDb))
}
