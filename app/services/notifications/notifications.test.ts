import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { contextOf, insertMember, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { UNREAD_NOTIFICATIONS_CAP } from '../../context.server.ts'
import { guessMapping, LEAD_FIELD_KEYS, type MappingInput } from '../imports/mapping.ts'
import { csvImportJob } from '../../jobs/definitions/csv-import.server.ts'
import { startCsvImport } from '../imports/start-import.server.ts'
import { receiveCsvUpload } from '../imports/uploads.server.ts'
import { sendNotificationMail } from './mail.server.ts'
import {
	getNotificationMail,
	listNotifications,
	markAllNotificationsRead,
	markNotificationRead,
	NOTIFICATIONS_PER_PAGE,
	saveNotificationMail,
} from './notifications.server.ts'
import { notifyJobEnd } from './record.server.ts'

/**
 * The bell's number, read by the request context's statement, checked against the service's
 * rule: the list's unread ones (newest first, up to the bell's cap) are as many.
 */
async function unreadNotificationCount(account: Account) {
	const { unreadNotifications } = await contextOf(db, account.user)
	let listed = 0
	let before: number | undefined
	do {
		const page = await listNotifications(account, before)
		listed += page.notifications.filter((n) => !n.read).length
		before = page.nextBefore ?? undefined
	} while (before !== undefined)
	expect(unreadNotifications).toBe(Math.min(listed, UNREAD_NOTIFICATIONS_CAP))
	return unreadNotifications
}

process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'leadsmith-notify-test-'))
resetSingleton('config')

type Account = Awaited<ReturnType<typeof contextOf>>
let ownerUser: Awaited<ReturnType<typeof insertUser>>
let owner: Account
let workspaceId: string

beforeAll(async () => {
	ownerUser = await insertUser(db)
	await insertSubscription(db, ownerUser.id)
	workspaceId = await insertWorkspace(db, ownerUser.id, 'Main')
	owner = await contextOf(db, ownerUser)
})

/** An import started in the workspace whose queued job is removed: the test is its worker. */
async function importByHand(account: Account, csv: string) {
	const uploaded = await receiveCsvUpload({
		stream: Readable.from([Buffer.from(csv)]),
		fileName: 'leads.csv',
		accountId: account.accountId,
		maxBytes: 1 << 20,
	})
	const guessed = guessMapping(uploaded.head[0]!, uploaded.head.slice(1))
	const mapping = {
		intent: 'import',
		uploadId: uploaded.id,
		name: `Import ${Math.random().toString(36).slice(2, 8)}`,
		hasHeader: true,
		keepExtra: true,
		...Object.fromEntries(LEAD_FIELD_KEYS.map((k) => [k, guessed[k]])),
		email: guessed.email!,
	} as MappingInput
	const { listId } = await startCsvImport(account, mapping, workspaceId)
	await sql`delete from pgboss.job where name = 'csv-import' and data->>'listId' = ${listId}`.execute(
		db,
	)
	return listId
}

/** The csv-import job's handler, as the worker runs it. */
function runImportJob(listId: string, retryCount = 0) {
	return csvImportJob.handler(
		{ listId },
		{ jobId: 'test', retryCount, signal: new AbortController().signal },
	)
}

async function notificationsOf(subjectId: string) {
	return db.selectFrom('notifications').selectAll().where('subject_id', '=', subjectId).execute()
}

async function mailsTo(email: string) {
	return db.selectFrom('mailbox').selectAll().where('to_address', '=', email).execute()
}

async function queuedMails(notificationId: number) {
	const { rows } = await sql<{ n: number }>`select count(*)::int as n from pgboss.job
		where name = 'notification-mail' and (data->>'notificationId')::bigint = ${notificationId}`.execute(
		db,
	)
	return rows[0]!.n
}

describe('one notification per job end', () => {
	test('an import that ends, and its retry after a crash, give one notification and one mail', async () => {
		const listId = await importByHand(owner, 'email\nada@example.com\nbob@example.com\n')
		await runImportJob(listId)
		// the retry of a job whose worker died after the end: it finds the list ended
		await runImportJob(listId, 1)
		const notes = await notificationsOf(listId)
		expect(notes).toHaveLength(1)
		expect(notes[0]).toMatchObject({
			kind: 'import',
			failed: false,
			account_id: owner.accountId,
			workspace_id: workspaceId,
			link: `/lists/${listId}`,
		})
		expect(notes[0]!.title).toContain('2 leads imported')
		// the outbox: the mail's job was queued with the row
		expect(await queuedMails(notes[0]!.id)).toBe(1)
		const before = (await mailsTo(ownerUser.email)).length
		await sendNotificationMail(notes[0]!.id)
		// the mail job run twice (a crash after the send, a duplicate delivery): one mail
		await sendNotificationMail(notes[0]!.id)
		const mails = await mailsTo(ownerUser.email)
		expect(mails).toHaveLength(before + 1)
		expect(mails.at(-1)!.subject).toBe(notes[0]!.title)
		expect(mails.at(-1)!.text_body).toContain(`/lists/${listId}`)
	})

	test('a crash between the end and its notification: the retry records it', async () => {
		const listId = await importByHand(owner, 'email\ncy@example.com\n')
		// ended by a worker that died before recording anything else
		await db
			.updateTable('processing_list')
			.set({ status: 3, error: 'The file has no rows.', finished_at: new Date() })
			.where('id', '=', listId)
			.execute()
		await runImportJob(listId, 1)
		const notes = await notificationsOf(listId)
		expect(notes).toHaveLength(1)
		expect(notes[0]).toMatchObject({ failed: true, link: `/lists/${listId}/import-report` })
	})

	test('two workers ending the same job at once record it once', async () => {
		const listId = await importByHand(owner, 'email\ndee@example.com\n')
		await runImportJob(listId)
		await db.deleteFrom('notifications').where('subject_id', '=', listId).execute()
		const results = await Promise.all([
			notifyJobEnd(db, { kind: 'import', id: listId }),
			notifyJobEnd(db, { kind: 'import', id: listId }),
		])
		expect(results.filter(Boolean)).toHaveLength(1)
		expect(await notificationsOf(listId)).toHaveLength(1)
	})

	test('a job still running gives no notification', async () => {
		const listId = await importByHand(owner, 'email\neve@example.com\n')
		expect(await notifyJobEnd(db, { kind: 'import', id: listId })).toBe(false)
		expect(await notificationsOf(listId)).toHaveLength(0)
	})
})

describe('mail settings', () => {
	test('a kind turned off is not mailed, and stays in the list', async () => {
		const user = await insertUser(db)
		await insertSubscription(db, user.id)
		await insertWorkspace(db, user.id, 'Main')
		const account = await contextOf(db, user)
		expect(await getNotificationMail(user.id)).toMatchObject({ import: true, renewal: true })
		await saveNotificationMail(user.id, {
			scrape: true,
			import: true,
			enrichment: true,
			upload: true,
			'inbox-order': true,
			renewal: false,
			'domain-health': true,
		})
		expect(await getNotificationMail(user.id)).toMatchObject({ import: true, renewal: false })
		await notifyJobEnd(db, { kind: 'renewal', id: `in_${user.id}`, accountId: user.id })
		const [note] = await notificationsOf(`in_${user.id}`)
		await sendNotificationMail(note!.id)
		expect(await mailsTo(user.email)).toHaveLength(0)
		const row = await db
			.selectFrom('notifications')
			.select('mailed_at')
			.where('id', '=', note!.id)
			.executeTakeFirstOrThrow()
		expect(row.mailed_at).not.toBeNull()
		expect(await unreadNotificationCount(account)).toBe(1)
		expect((await listNotifications(account)).notifications[0]).toMatchObject({
			title: 'A renewal payment failed',
			link: '/subscription',
			read: false,
		})
	})
})

describe('who sees them', () => {
	test('members see their workspaces’ notifications only; others’ ids are a 404', async () => {
		const user = await insertUser(db)
		await insertSubscription(db, user.id)
		const ws = await insertWorkspace(db, user.id, 'Main')
		const other = await insertWorkspace(db, user.id, 'Other')
		const inMain = await insertMember(db, user, { workspaceIds: [ws] })
		const inOther = await insertMember(db, user, { workspaceIds: [other] })
		const stranger = await insertUser(db)
		await insertSubscription(db, stranger.id)
		const ownerCtx = await contextOf(db, user)
		const mainCtx = await contextOf(db, inMain)
		const otherCtx = await contextOf(db, inOther)
		const strangerCtx = await contextOf(db, stranger)
		const [note] = await db
			.insertInto('notifications')
			.values({
				account_id: user.id,
				workspace_id: ws,
				kind: 'upload',
				subject_id: `scoping-${user.id}`,
				failed: false,
				title: 'Upload finished',
				link: '/uploads',
			})
			.returning('id')
			.execute()
		expect(await unreadNotificationCount(ownerCtx)).toBe(1)
		expect(await unreadNotificationCount(mainCtx)).toBe(1)
		expect(await unreadNotificationCount(otherCtx)).toBe(0)
		expect((await listNotifications(otherCtx)).notifications).toHaveLength(0)
		expect(await outcomeOf(() => markNotificationRead(otherCtx, note!.id))).toBe(404)
		expect(await outcomeOf(() => markNotificationRead(strangerCtx, note!.id))).toBe(404)
		// reads are each person's own
		await markNotificationRead(mainCtx, note!.id)
		expect(await unreadNotificationCount(mainCtx)).toBe(0)
		expect(await unreadNotificationCount(ownerCtx)).toBe(1)
		expect(await markAllNotificationsRead(ownerCtx)).toBe(1)
		expect(await unreadNotificationCount(ownerCtx)).toBe(0)
		// what comes after "mark all read" is unread again
		await db
			.insertInto('notifications')
			.values({
				account_id: user.id,
				workspace_id: ws,
				kind: 'upload',
				subject_id: `scoping-later-${user.id}`,
				failed: true,
				title: 'Upload failed',
				link: '/uploads',
			})
			.execute()
		expect(await unreadNotificationCount(ownerCtx)).toBe(1)
		expect(await unreadNotificationCount(mainCtx)).toBe(1)
		expect(await markAllNotificationsRead(ownerCtx)).toBe(1)
		expect(await unreadNotificationCount(ownerCtx)).toBe(0)
	})

	test('many are paged newest first by keyset', async () => {
		const user = await insertUser(db)
		await insertSubscription(db, user.id)
		const account = await contextOf(db, user)
		const total = NOTIFICATIONS_PER_PAGE + 3
		await db
			.insertInto('notifications')
			.values(
				Array.from({ length: total }, (_, i) => ({
					account_id: user.id,
					kind: 'renewal',
					subject_id: `page-${user.id}-${i}`,
					failed: true,
					title: `Note ${i}`,
					link: '/subscription',
				})),
			)
			.execute()
		const first = await listNotifications(account)
		expect(first.notifications).toHaveLength(NOTIFICATIONS_PER_PAGE)
		expect(first.notifications[0]!.title).toBe(`Note ${total - 1}`)
		const second = await listNotifications(account, first.nextBefore!)
		expect(second.notifications.map((n) => n.title)).toEqual(['Note 2', 'Note 1', 'Note 0'])
		expect(second.nextBefore).toBeNull()
	})
})
