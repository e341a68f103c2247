import type { Kysely } from 'kysely'
import { db as processDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import { createMailer, type Mailer } from '../mail/mailer.server.ts'
import { NOTIFICATION_KIND_LABELS, type NotificationKind } from './kinds.ts'

/**
 * The notification-mail job (the outbox's sender): mails the account owner about one
 * notification unless they turned its kind off, once. The row is locked and `mailed_at`
 * (mail decided: sent or not wanted) is written in the same transaction as the send; with the
 * local mailbox the mail is a row of that transaction (exactly once), through SMTP a crash
 * between the server's acceptance and the commit sends it again on the retry (at least once).
 * Owners are mailed because the jobs' rows record the account, not who pressed the button.
 */
export async function sendNotificationMail(
	notificationId: number,
	options: { db?: Kysely<DB>; mailer?: (trx: Kysely<DB>) => Mailer } = {},
) {
	const config = getConfig()
	const mailerFor = options.mailer ?? ((trx: Kysely<DB>) => createMailer(config, trx))
	await (options.db ?? processDb).transaction().execute(async (trx) => {
		const note = await trx
			.selectFrom('notifications as n')
			.innerJoin('auth.users as u', 'u.id', 'n.account_id')
			.leftJoin('notification_settings as s', 's.user_id', 'n.account_id')
			.select(['n.kind', 'n.title', 'n.body', 'n.link', 'n.mailed_at', 'u.email', 's.mail_off'])
			.where('n.id', '=', notificationId)
			.forUpdate('n')
			.executeTakeFirst()
		if (!note || note.mailed_at) return
		const wanted = note.email && !(note.mail_off ?? []).includes(note.kind)
		if (wanted) {
			const kind = NOTIFICATION_KIND_LABELS[note.kind as NotificationKind] ?? note.kind
			await mailerFor(trx).send({
				to: note.email!,
				subject: note.title,
				text: [
					note.title,
					...(note.body ? ['', note.body] : []),
					'',
					`Open it: ${config.APP_URL}${note.link}`,
					'',
					`You get this mail for ${kind.toLowerCase()}. Choose which mails you get: ${config.APP_URL}/settings#notifications`,
				].join('\n'),
			})
		}
		await trx
			.updateTable('notifications')
			.set({ mailed_at: new Date() })
			.where('id', '=', notificationId)
			.execute()
	})
}
