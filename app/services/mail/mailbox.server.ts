import { db } from '../../../db/index.server.ts'

export async function listMailbox(options: { to?: string; limit: number }) {
	let query = db
		.selectFrom('mailbox')
		.select(['id', 'to_address', 'subject', 'text_body', 'created_at'])
		.orderBy('id', 'desc')
		.limit(options.limit)
	if (options.to)
		query = query.where((eb) => eb(eb.fn('lower', ['to_address']), '=', options.to!.toLowerCase()))
	const rows = await query.execute()
	return rows.map((r) => ({
		id: r.id,
		to: r.to_address,
		subject: r.subject,
		text: r.text_body,
		createdAt: r.created_at.toISOString(),
	}))
}
