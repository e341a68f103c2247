import { describe, expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { insertMember, insertWorkspace, outcomeOf } from '../../../tests/support/team.ts'
import { findCheckout } from '../billing/checkout.server.ts'
import { completeTestCheckout } from '../billing/complete-checkout.server.ts'
import { importDomains } from '../domains/domains.server.ts'
import { startDomainSubscription } from '../domains/subscriptions.server.ts'
import { failOrder, fulfilOrder, startOrder } from './fulfilment.server.ts'
import { exportInboxesCsv, listInboxes, setInboxCancel } from './inboxes.server.ts'
import {
	decodeOrder,
	encodeOrder,
	listInboxOrders,
	listOrderableDomains,
	quoteInboxOrder,
	startInboxOrderCheckout,
} from './orders.server.ts'
import { generatePersonas, parsePersonas, planAddresses } from './personas.ts'

async function setup() {
	const user = await insertUser(db)
	const workspaceId = await insertWorkspace(db, user.id, 'Main')
	const account = await loadAccountContext(db, user)
	const suffix = user.id.slice(0, 6)
	const names = [`a${suffix}.com`, `b${suffix}.com`, `c${suffix}.com`]
	await importDomains(account, { text: names.join('\n'), workspaceId })
	const domains = await db
		.selectFrom('domains')
		.select(['id', 'name'])
		.where('user_id', '=', user.id)
		.orderBy('name')
		.execute()
	// a and b subscribed; c not
	for (const d of domains.slice(0, 2)) {
		const checkout = await startDomainSubscription(account, d.id)
		await completeTestCheckout(account, checkout.id)
	}
	return { user, account, workspaceId, domains }
}

async function adminAccount() {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role: 'admin' }).execute()
	return loadAccountContext(db, user)
}

const ORDER = (domainIds: string[], over: Record<string, unknown> = {}) => ({
	domainIds,
	provider: 'google',
	inboxesPerDomain: 2,
	personas: 'Ada Lovelace\nZoë O’Brien',
	patterns: ['first.last', 'first'],
	...over,
})

async function formMessage(run: () => Promise<unknown>) {
	try {
		await run()
	} catch (error) {
		if (error instanceof FormError) return error.message
		throw error
	}
	throw new Error('expected a FormError')
}

describe('personas and addresses', () => {
	test('names with characters an address cannot hold are refused; accents are dropped', () => {
		expect(parsePersonas('Ada Lovelace\n\nZoë O’Brien\nada lovelace')).toEqual({
			personas: [
				{ first: 'Ada', last: 'Lovelace' },
				{ first: 'Zoë', last: 'O’Brien' },
			],
			errors: [],
		})
		const { errors } = parsePersonas('J@ne Doe\nBob\nAl 3ster\n李 王\nMary-Jane Smith')
		expect(errors).toHaveLength(4)
		expect(errors[0]).toMatch(/Line 1: “J@ne” has characters/)
		expect(errors[1]).toMatch(/Line 2: write a first and a last name/)
		const addresses = planAddresses(
			'acme.com',
			[{ first: 'Zoë', last: 'O’Brien' }],
			['first', 'first.last', 'f.last', 'firstl'],
			4,
		)
		expect(addresses.map((a) => a.address)).toEqual([
			'zoe@acme.com',
			'zoe.obrien@acme.com',
			'z.obrien@acme.com',
			'zoeo@acme.com',
		])
		expect(generatePersonas(3).split('\n')).toHaveLength(3)
	})
})

describe('quote, checkout, order', () => {
	test('a quote writes no order; paying creates the order (status 0) for admins', async () => {
		const { account, domains, workspaceId } = await setup()
		const [a, b] = domains
		expect((await listOrderableDomains(account)).map((d) => d.id)).toEqual([a!.id, b!.id])
		const quote = await quoteInboxOrder(account, ORDER([a!.id, b!.id]))
		expect(quote).toMatchObject({ count: 4, unitCents: 300, totalCents: 1200, workspaceId })
		expect(quote.domains[0]!.addresses).toEqual([
			`ada.lovelace@${a!.name}`,
			`zoe.obrien@${a!.name}`,
		])
		expect(await listInboxOrders(account)).toEqual([])

		const link = encodeOrder(quote.order)
		const checkout = await startInboxOrderCheckout(account, decodeOrder(link))
		expect(await listInboxOrders(account)).toEqual([])
		const session = await findCheckout(account, checkout.id)
		expect(session.line_items[0]).toMatchObject({
			kind: 'inbox_order',
			quantity: 4,
			unitAmountCents: 300,
		})
		await completeTestCheckout(account, checkout.id)
		const orders = await listInboxOrders(account)
		expect(orders).toHaveLength(1)
		expect(orders[0]).toMatchObject({
			status: 0,
			provider: 'google',
			total_cents: 1200,
			inboxes_per_domain: 2,
		})
	})

	test('bad orders: 0 or too many inboxes, bad names, expired or unsubscribed or foreign domains', async () => {
		const { account, domains } = await setup()
		const [a, b, c] = domains
		const other = await setup()
		expect(
			await formMessage(() => quoteInboxOrder(account, ORDER([a!.id], { inboxesPerDomain: 0 }))),
		).toMatch(/at least 1 inbox/)
		expect(
			await formMessage(() => quoteInboxOrder(account, ORDER([a!.id], { inboxesPerDomain: 6 }))),
		).toMatch(/Google takes 1 to 5/)
		expect(
			await formMessage(() =>
				quoteInboxOrder(account, ORDER([a!.id], { provider: 'microsoft', inboxesPerDomain: 51 })),
			),
		).toMatch(/Microsoft takes 1 to 50/)
		expect(
			await formMessage(() => quoteInboxOrder(account, ORDER([a!.id], { personas: 'J@ne Doe' }))),
		).toMatch(/cannot hold/)
		expect(
			await formMessage(() =>
				quoteInboxOrder(account, ORDER([a!.id], { inboxesPerDomain: 5, patterns: ['first'] })),
			),
		).toMatch(/need 5 different addresses/)
		expect(await formMessage(() => quoteInboxOrder(account, ORDER([c!.id])))).toMatch(
			/no active domain subscription/,
		)
		expect(
			await formMessage(() => quoteInboxOrder(account, ORDER([other.domains[0]!.id]))),
		).toMatch(/not yours/)
		expect(await formMessage(() => quoteInboxOrder(account, ORDER(['nope'])))).toMatch(
			/from the list/,
		)
		// an expired domain subscription: no ordering
		await db
			.updateTable('domain_subscriptions')
			.set({ expire_date: new Date(Date.now() - 1000) })
			.where('domain_id', '=', b!.id)
			.execute()
		expect(await formMessage(() => quoteInboxOrder(account, ORDER([b!.id])))).toMatch(
			/no active domain subscription/,
		)
		expect(await formMessage(() => startInboxOrderCheckout(account, ORDER([b!.id])))).toMatch(
			/no active domain subscription/,
		)
		expect(() => decodeOrder('%%%')).toThrow(FormError)
	})

	test('read-only members may quote nothing; write-scope editors order and pay', async () => {
		const { user, domains } = await setup()
		const read = await insertMember(db, user, { scopes: ['domain-management:read'] })
		const write = await insertMember(db, user, {
			scopes: ['domain-management:read', 'domain-management:write'],
		})
		const readAccount = await loadAccountContext(db, read)
		const writeAccount = await loadAccountContext(db, write)
		expect(await outcomeOf(() => quoteInboxOrder(readAccount, ORDER([domains[0]!.id])))).toBe(403)
		expect(await outcomeOf(() => listInboxOrders(readAccount))).toBe('ok')
		const checkout = await startInboxOrderCheckout(writeAccount, ORDER([domains[0]!.id]))
		expect(await outcomeOf(() => findCheckout(readAccount, checkout.id))).toBe(403)
		await completeTestCheckout(writeAccount, checkout.id)
		expect(await listInboxOrders(writeAccount)).toHaveLength(1)
	})
})

describe('fulfilment, inboxes, export', () => {
	async function paidOrder() {
		const ctx = await setup()
		const checkout = await startInboxOrderCheckout(ctx.account, ORDER([ctx.domains[0]!.id]))
		await completeTestCheckout(ctx.account, checkout.id)
		const [order] = await listInboxOrders(ctx.account)
		return { ...ctx, order: order! }
	}
	const HEADER = 'email,first_name,last_name,password,smtp_host,smtp_port,imap_host,imap_port'

	test('a CSV of credentials checked row by row, then inboxes with sealed credentials', async () => {
		const { account, order, domains } = await paidOrder()
		const admin = await adminAccount()
		const d = domains[0]!.name
		expect(await outcomeOf(() => fulfilOrder(account, order.id, HEADER))).toBe(403)
		await startOrder(admin, order.id)
		const bad = await formMessage(() =>
			fulfilOrder(
				admin,
				order.id,
				[
					HEADER,
					`ada@${d},Ada,Lovelace,short,smtp.gmail.com,587,imap.gmail.com,993`,
					`bob@elsewhere.com,Bob,B,longenough1,smtp.gmail.com,587,imap.gmail.com,993`,
					`cy@${d},Cy,C,=cmd|x,smtp.gmail.com,99999,imap.gmail.com,993`,
				].join('\n'),
			),
		)
		expect(bad).toMatch(/Line 2: password needs at least 8 characters/)
		expect(bad).toMatch(/Line 3: elsewhere.com is not one of this order's domains/)
		expect(bad).toMatch(/Line 4: .*cannot start with.*smtp_port is not a port/)
		expect(await listInboxes(account)).toEqual([])

		await fulfilOrder(
			admin,
			order.id,
			[
				HEADER,
				`ada.lovelace@${d},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`,
				`"zoe.obrien@${d}",Zoë,"O’Brien, Jr",p4ss"word!,smtp.gmail.com,465,imap.gmail.com,993`,
			].join('\r\n'),
		)
		expect((await listInboxOrders(account))[0]).toMatchObject({ status: 2 })
		const inboxes = await listInboxes(account)
		expect(inboxes.map((i) => i.address)).toEqual([`ada.lovelace@${d}`, `zoe.obrien@${d}`])
		const stored = await db
			.selectFrom('inboxes')
			.select('encrypted_credentials')
			.where('order_id', '=', order.id)
			.execute()
		expect(
			stored.every((s) => s.encrypted_credentials && !s.encrypted_credentials.includes('s3cret')),
		).toBe(true)

		const csv = await exportInboxesCsv(account)
		expect(csv.split('\r\n')[0]).toBe(
			'Email,First Name,Last Name,Password,SMTP Host,SMTP Port,IMAP Host,IMAP Port',
		)
		expect(csv).toContain(
			`ada.lovelace@${d},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`,
		)
		expect(csv).toContain('"O’Brien, Jr"')

		// filters: by domain and status; cancel at period end
		expect(await listInboxes(account, { domainId: domains[1]!.id })).toEqual([])
		await setInboxCancel(account, inboxes[0]!.id, true)
		expect((await listInboxes(account, { status: 'cancelling' })).map((i) => i.address)).toEqual([
			`ada.lovelace@${d}`,
		])
		expect(await outcomeOf(() => setInboxCancel(account, inboxes[0]!.id, true))).toBe('form')
		const stranger = await setup()
		expect(await outcomeOf(() => setInboxCancel(stranger.account, inboxes[0]!.id, true))).toBe(404)
	})

	test('a member’s export has no passwords; formula cells are escaped', async () => {
		const { user, account, order, domains } = await paidOrder()
		const admin = await adminAccount()
		const d = domains[0]!.name
		await fulfilOrder(
			admin,
			order.id,
			[
				HEADER,
				`ada.lovelace@${d},=HYPERLINK("x"),Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`,
			].join('\n'),
		)
		const member = await insertMember(db, user, { role: 'admin' })
		const memberCsv = await exportInboxesCsv(await loadAccountContext(db, member))
		expect(memberCsv).not.toContain('s3cret-pass')
		expect(memberCsv).toContain(`"'=HYPERLINK(""x"")"`)
		expect(await exportInboxesCsv(account)).toContain('s3cret-pass')
	})

	test('failOrder refunds a test-mode payment', async () => {
		const { account, order } = await paidOrder()
		const admin = await adminAccount()
		expect(await outcomeOf(() => failOrder(admin, order.id, ' '))).toBe('form')
		await failOrder(admin, order.id, 'Provider refused the domain')
		const [failed] = await listInboxOrders(account)
		expect(failed).toMatchObject({ status: 3, error: 'Provider refused the domain' })
		expect(failed!.refunded_at).toBeInstanceOf(Date)
		expect(await outcomeOf(() => failOrder(admin, order.id, 'again'))).toBe('form')
		// the owner is told once (decision 0082)
		const notes = await db
			.selectFrom('notifications')
			.select(['kind', 'failed', 'body', 'link'])
			.where('subject_id', '=', order.id)
			.execute()
		expect(notes).toEqual([
			{ kind: 'inbox-order', failed: true, body: 'Provider refused the domain', link: '/inboxes' },
		])
	})
})
