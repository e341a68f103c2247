import { sql, type ExpressionBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { notFound } from '../../utils/http-errors.server.ts'
import { NOTIFICATION_KINDS, type NotificationKind } from './kinds.ts'

export const NOTIFICATIONS_PER_PAGE = 25

/**
 * The notifications this person may see: their account's, of the workspaces they may use now
 * (a member who lost a workspace no longer sees its jobs), and those of no workspace only with
 * access to all (as canUseWorkspace in workspaces/access.server.ts).
 */
function visibleTo(account: ActingAccount) {
	const ids = account.workspaces.map((w) => w.id)
	return (eb: ExpressionBuilder<DB, 'notifications'>) =>
		eb.and([
			eb('notifications.account_id', '=', account.accountId),
			eb.or([
				...(ids.length > 0 ? [eb('notifications.workspace_id', 'in', ids)] : []),
				...(account.accessAllWorkspaces ? [eb('notifications.workspace_id', 'is', null)] : []),
				eb.lit(false),
			]),
		])
}

// Unread: after the person's "mark all read" mark and not read one by one. The bell's count is
// the same rule in the request context's statement (app/context.server.ts), so a page pays no
// round trip of its own for it; notifications.test.ts holds the two equal.
function unread(userId: string) {
	return sql<boolean>`(notifications.id > coalesce((select s.read_through from notification_settings s
		where s.user_id = ${userId}), 0)
		and not exists (select 1 from notification_reads r
		where r.notification_id = notifications.id and r.user_id = ${userId}))`
}

/** Newest first, a page at a time: `before` is the last id of the page above (keyset). */
export async function listNotifications(account: ActingAccount, before?: number) {
	const rows = await db
		.selectFrom('notifications')
		.select(['id', 'kind', 'title', 'body', 'link', 'failed', 'created_at'])
		.select(sql<boolean>`not ${unread(account.user.id)}`.as('read'))
		.where(visibleTo(account))
		.$if(before !== undefined, (q) => q.where('id', '<', before!))
		.orderBy('id', 'desc')
		.limit(NOTIFICATIONS_PER_PAGE + 1)
		.execute()
	const page = rows.slice(0, NOTIFICATIONS_PER_PAGE)
	return {
		notifications: page.map((r) => ({
			id: r.id,
			kind: r.kind as NotificationKind,
			title: r.title,
			body: r.body,
			link: r.link,
			failed: r.failed,
			read: r.read,
			createdAt: r.created_at.toISOString(),
		})),
		nextBefore: rows.length > NOTIFICATIONS_PER_PAGE ? page.at(-1)!.id : null,
	}
}

/** Marks one read; one this person may not see is a 404, as if it did not exist. */
export async function markNotificationRead(account: ActingAccount, id: number) {
	const row = await db
		.selectFrom('notifications')
		.select('id')
		.where('id', '=', id)
		.where(visibleTo(account))
		.executeTakeFirst()
	if (!row) notFound('This notification')
	await db
		.insertInto('notification_reads')
		.values({ notification_id: row.id, user_id: account.user.id })
		.onConflict((oc) => oc.doNothing())
		.execute()
}

/**
 * Marks every notification this person sees read; how many were unread. One mark (the newest id
 * seen) instead of a row per notification, so the count stays cheap however many there are.
 */
export async function markAllNotificationsRead(account: ActingAccount) {
	return db.transaction().execute(async (trx) => {
		const row = await trx
			.selectFrom('notifications')
			.select((eb) => [
				eb.fn.max('id').as('newest'),
				eb.fn.countAll<number>().filterWhere(unread(account.user.id)).as('unread'),
			])
			.where(visibleTo(account))
			.executeTakeFirstOrThrow()
		if (row.newest === null) return 0
		const newest = Number(row.newest)
		await trx
			.insertInto('notification_settings')
			.values({ user_id: account.user.id, read_through: newest })
			.onConflict((oc) =>
				oc.column('user_id').doUpdateSet({
					read_through: sql`greatest(notification_settings.read_through, excluded.read_through)`,
				}),
			)
			.execute()
		// the one-by-one reads under the mark say nothing more
		await trx
			.deleteFrom('notification_reads')
			.where('user_id', '=', account.user.id)
			.where('notification_id', '<=', newest)
			.execute()
		return Number(row.unread)
	})
}

/** Which kinds this person gets mail for (all, until they turn some off). */
export async function getNotificationMail(userId: string) {
	const row = await db
		.selectFrom('notification_settings')
		.select('mail_off')
		.where('user_id', '=', userId)
		.executeTakeFirst()
	const off = new Set(row?.mail_off ?? [])
	return Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, !off.has(k)])) as Record<
		NotificationKind,
		boolean
	>
}

export async function saveNotificationMail(
	userId: string,
	mailed: Record<NotificationKind, boolean>,
) {
	const off = NOTIFICATION_KINDS.filter((k) => !mailed[k])
	await db
		.insertInto('notification_settings')
		.values({ user_id: userId, mail_off: off })
		.onConflict((oc) => oc.column('user_id').doUpdateSet({ mail_off: off, updated_at: sql`now()` }))
		.execute()
}
