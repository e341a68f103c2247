import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import { createMailer } from '../mail/mailer.server.ts'

/**
 * The webhook-disabled-mail job: tells the account owner their endpoint was disabled after
 * failing for 5 days. Queued in the transaction that disabled it; sent once per disabling
 * (`disabled_mailed_at`, written with the send, as the notification mails do, decision 0082).
 */
export async function sendEndpointDisabledMail(endpointId: string) {
	const config = getConfig()
	await db.transaction().execute(async (trx) => {
		const endpoint = await trx
			.selectFrom('webhook_endpoints as e')
			.innerJoin('auth.users as u', 'u.id', 'e.account_id')
			.select(['e.url', 'e.status', 'e.disabled_mailed_at', 'e.updated_at', 'u.email'])
			.where('e.id', '=', endpointId)
			.forUpdate('e')
			.executeTakeFirst()
		if (!endpoint || endpoint.status !== 'disabled') return
		if (endpoint.disabled_mailed_at && endpoint.disabled_mailed_at >= endpoint.updated_at) return
		if (endpoint.email)
			await createMailer(config, trx).send({
				to: endpoint.email,
				subject: 'A webhook endpoint was disabled',
				text: [
					`Every delivery to ${endpoint.url} failed for 5 days, so Leadsmith disabled the endpoint.`,
					'',
					'Fix the receiver, then enable it again: deliveries that were waiting go out at once.',
					`${config.APP_URL}/developers/webhooks`,
				].join('\n'),
			})
		await trx
			.updateTable('webhook_endpoints')
			.set({ disabled_mailed_at: new Date() })
			.where('id', '=', endpointId)
			.execute()
	})
}
