import { sql, type ExpressionBuilder } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { ActingAccount } from '../workspaces/access.server.ts'
import { notFound } from '../../utils/http-errors.server.ts'
import { NOTIFICATION_KINDS, type NotificationKind } from './kinds.ts'

export const NOTIFICATIONS_PER_PAGE = 25
/** The bell counts up to this many; more shows as "99+". */
export const UNREAD_COUNT_CAP = 100

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

function unread(userId: string) {
	return sql<boolean>`not exists (select 1 from notification_reads r
		where r.notification_id = notifications.id and r.user_id = ${userId})`
}

/** How many this person has not read, up to UNREAD_COUNT_CAP (the bell's number). */
export async function unreadNotificationCount(account: ActingAccount) {
	const row = await db
		.selectFrom((eb) =>
			eb
				.selectFrom('notifications')
				.select('id')
				.where(visibleTo(account))
				.where(unread(account.user.id))
				.limit(UNREAD_COUNT_CAP)
				.as('u'),
		)
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.executeTakeFirstOrThrow()
	return Number(row.n)
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

/** Marks every notification this person sees read; how many were unread. */
export async function markAllNotificationsRead(account: ActingAccount) {
	const result = await db
		.insertInto('notification_reads')
		.columns(['notification_id', 'user_id'])
		.expression((eb) =>
			eb
				.selectFrom('notifications')
				.select(['id', eb.val(account.user.id).as('user_id')])
				.where(visibleTo(account))
				.where(unread(account.user.id)),
		)
		.onConflict((oc) => oc.doNothing())
		.executeTakeFirst()
	return Number(result.numInsertedOrUpdatedRows ?? 0)
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
