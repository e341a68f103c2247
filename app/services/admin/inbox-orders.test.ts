import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { auditActions, newOwner } from '../../../tests/support/billing.ts'
import { outcomeOf } from '../../../tests/support/team.ts'
import { sendNotificationMail } from '../notifications/mail.server.ts'
import {
	failOrder,
	fulfilOrderAndNotify,
	listOrderQueue,
	startOrder,
} from './inbox-orders.server.ts'

async function staff(role: 'admin' | 'editor') {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role }).execute()
	return loadAccountContext(db, user)
}

async function order() {
	const owner = await newOwner()
	const suffix = owner.user.id.slice(0, 8)
	const domain = await db
		.insertInto('domains')
		.values({ user_id: owner.user.id, name: `acme-${suffix}.com`, source: 'imported' })
		.returning(['id', 'name'])
		.executeTakeFirstOrThrow()
	const row = await db
		.insertInto('inbox_orders')
		.values({
			user_id: owner.user.id,
			provider: 'google',
			inboxes_per_domain: 2,
			domain_ids: [domain.id],
			total_cents: 600,
			payment_reference: 'test:1',
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	return { owner, domain: domain.name, id: row.id }
}

/** Runs the mail job of the order's notifications, as the worker does. */
async function sendOrderMails(orderId: string) {
	const notes = await db
		.selectFrom('notifications')
		.select('id')
		.where('subject_id', '=', orderId)
		.execute()
	for (const note of notes) await sendNotificationMail(note.id)
}

const HEADER = 'email,first_name,last_name,password,smtp_host,smtp_port,imap_host,imap_port'
const line = (address: string) =>
	`${address},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`

async function inboxCount(id: string) {
	const rows = await db.selectFrom('inboxes').select('id').where('order_id', '=', id).execute()
	return rows.length
}

describe('inbox orders in the admin area', () => {
	test('start, fulfil with a CSV, the owner is told by email, every step audited', async () => {
		const admin = await staff('admin')
		const { owner, domain, id } = await order()
		const queue = await listOrderQueue(admin, 0)
		expect(queue.find((o) => o.id === id)).toMatchObject({
			owner_email: owner.user.email,
			domains: [domain],
		})
		await startOrder(admin, id)
		const csv = [HEADER, line(`ada@${domain}`), line(`bob@${domain}`)].join('\n')
		expect(await fulfilOrderAndNotify(admin, id, csv)).toEqual({
			inboxes: 2,
			delivered: 2,
			ordered: 2,
			complete: true,
		})
		expect(await inboxCount(id)).toBe(2)
		await sendOrderMails(id)
		const mail = await db
			.selectFrom('mailbox')
			.select(['subject', 'text_body'])
			.where('to_address', '=', owner.user.email)
			.execute()
		expect(mail.map((m) => m.subject)).toContain('Your 2 inboxes are ready')
		// the link as a mail client finds it (up to the next space) opens Inboxes Management
		const ready = mail.find((m) => m.subject === 'Your 2 inboxes are ready')!
		const link = /https?:\/\/\S+/.exec(ready.text_body)?.[0]
		expect(link && new URL(link).pathname).toBe('/inboxes')
		expect((await auditActions(id)).map((a) => a.action)).toEqual([
			'inboxes.order.start',
			// the paid month starts at delivery (decision 0018)
			'inboxes.billing.start',
			'inboxes.order.fulfil',
		])
	})

	test('part of an order is delivered and billed only when the rest is; the order stays open', async () => {
		const admin = await staff('admin')
		const { owner, domain, id } = await order()
		await startOrder(admin, id)
		const first = await fulfilOrderAndNotify(admin, id, [HEADER, line(`ada@${domain}`)].join('\n'))
		expect(first).toEqual({ inboxes: 1, delivered: 1, ordered: 2, complete: false })
		const open = await db
			.selectFrom('inbox_orders')
			.select(['status', 'fulfilled_at', 'billing_date'])
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		// not delivered, its month not started: still in the admins' open queue
		expect(open).toMatchObject({ status: 1, fulfilled_at: null })
		expect((await listOrderQueue(admin, 1)).find((o) => o.id === id)).toMatchObject({
			delivered: 1,
			ordered: 2,
		})
		const early = await db
			.selectFrom('inboxes')
			.select(['status', 'period_end'])
			.where('order_id', '=', id)
			.executeTakeFirstOrThrow()
		expect(early).toEqual({ status: 'active', period_end: null })
		expect((await auditActions(id)).map((a) => a.action)).toEqual([
			'inboxes.order.start',
			'inboxes.order.deliver_part',
		])
		const mails = () =>
			db
				.selectFrom('mailbox')
				.select('subject')
				.where('to_address', '=', owner.user.email)
				.execute()
		await sendOrderMails(id)
		expect(await mails()).toEqual([])
		// the share of a domain counts what was delivered before
		await expect(
			fulfilOrderAndNotify(
				admin,
				id,
				[HEADER, line(`bob@${domain}`), line(`cy@${domain}`)].join('\n'),
			),
		).rejects.toThrow(`more than 2 inboxes at ${domain}`)
		// an order with delivered inboxes is not failed and refunded in full
		await expect(failOrder(admin, id, 'gave up')).rejects.toThrow('delivered already')

		const rest = await fulfilOrderAndNotify(admin, id, [HEADER, line(`bob@${domain}`)].join('\n'))
		expect(rest).toEqual({ inboxes: 1, delivered: 2, ordered: 2, complete: true })
		const done = await db
			.selectFrom('inbox_orders')
			.select(['status', 'paid_through'])
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		expect(done.status).toBe(2)
		const periods = await db
			.selectFrom('inboxes')
			.select('period_end')
			.where('order_id', '=', id)
			.execute()
		// both inboxes, the early one too, are paid through the month that starts now
		expect(periods.map((p) => p.period_end?.getTime())).toEqual([
			done.paid_through!.getTime(),
			done.paid_through!.getTime(),
		])
		await sendOrderMails(id)
		await sendOrderMails(id)
		expect((await mails()).map((m) => m.subject)).toEqual(['Your 2 inboxes are ready'])
		expect((await auditActions(id)).map((a) => a.action)).toEqual([
			'inboxes.order.start',
			'inboxes.order.deliver_part',
			'inboxes.billing.start',
			'inboxes.order.fulfil',
		])
	})

	test('a bad CSV is reported per row and writes nothing', async () => {
		const admin = await staff('admin')
		const { domain, id } = await order()
		const missing = await outcomeOf(() => fulfilOrderAndNotify(admin, id, 'email,password\nx,y'))
		expect(missing).toBe('form')
		const bad = [HEADER, line(`ada@${domain}`), line('eve@elsewhere.com'), line(`ada@${domain}`)]
		await expect(fulfilOrderAndNotify(admin, id, bad.join('\n'))).rejects.toThrow(
			/Line 3: elsewhere\.com is not one of this order's domains.*Line 4: email repeats an earlier row/,
		)
		expect(await inboxCount(id)).toBe(0)
	})

	test('an editor and a normal user get 403; failing refunds and is audited', async () => {
		const admin = await staff('admin')
		const editor = await staff('editor')
		const { owner, id } = await order()
		for (const account of [editor, owner.account]) {
			expect(await outcomeOf(() => startOrder(account, id))).toBe(403)
			expect(await outcomeOf(() => failOrder(account, id, 'no'))).toBe(403)
			expect(await outcomeOf(() => fulfilOrderAndNotify(account, id, HEADER))).toBe(403)
		}
		expect(await outcomeOf(() => listOrderQueue(owner.account, null))).toBe(403)
		expect((await listOrderQueue(editor, null)).some((o) => o.id === id)).toBe(true)
		await failOrder(admin, id, 'provider out of stock')
		const failed = await db
			.selectFrom('inbox_orders')
			.select(['status', 'refund_cents', 'error'])
			.where('id', '=', id)
			.executeTakeFirstOrThrow()
		expect(failed).toEqual({ status: 3, refund_cents: 600, error: 'provider out of stock' })
		expect((await auditActions(id)).map((a) => a.action)).toEqual([
			'inboxes.order.fail',
			'inboxes.order.refund',
		])
	})
})
