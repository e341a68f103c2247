import { expect } from '@playwright/test'
import { withDatabase } from './support.ts'

/**
 * The newest mail to `email`, read from the server's database (the local mailbox table), with
 * its first link and its 6-digit code. Independent of who may open /dev/mailbox.
 */
export async function latestMail(email: string, options: { after?: number } = {}) {
	let mail: { id: number; subject: string; text: string } | undefined
	await expect
		.poll(async () => {
			mail = await withDatabase(async (db) => {
				const { rows } = await db.query<{ id: number; subject: string; text_body: string }>(
					`select id, subject, text_body from mailbox where to_address = $1 and id > $2
					order by id desc limit 1`,
					[email, options.after ?? 0],
				)
				const row = rows[0]
				return row ? { id: Number(row.id), subject: row.subject, text: row.text_body } : undefined
			})
			return mail !== undefined
		})
		.toBe(true)
	const link = /https?:\/\/\S+/.exec(mail!.text)?.[0]
	const code = /code: (\d{6})/.exec(mail!.text)?.[1]
	return { ...mail!, link, code }
}

/** The id of the newest mail to `email` now (0 when none): what `latestMail`'s `after` takes. */
export async function lastMailId(email: string) {
	return withDatabase(async (db) => {
		const { rows } = await db.query<{ id: string | null }>(
			'select max(id) as id from mailbox where to_address = $1',
			[email],
		)
		return Number(rows[0]?.id ?? 0)
	})
}
