// The admin area through the production build: the role matrix over HTTP (platform admin,
// platform editor, a normal user, a team member), bad input, and the admin forms in the
// browser with JavaScript on and off. The service-level matrix is app/services/admin/admin.test.ts.
import { expect, request as http, test, type APIRequestContext, type Page } from '@playwright/test'
import { startFakeStripe, type FakeStripe } from '../fakes/stripe/server.ts'
import { startKeyedServer, type KeyedServer } from './keyed-server.ts'
import { PASSWORD, signIn, uniqueEmail, withDatabase } from './support.ts'

const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

async function client(baseURL: string) {
	return http.newContext({ baseURL, extraHTTPHeaders: { Origin: baseURL } })
}

async function signedUp(baseURL: string) {
	const email = uniqueEmail('adm')
	const c = await client(baseURL)
	const response = await c.post('/signup', {
		form: { fullName: 'Admin Matrix', email, password: PASSWORD },
		maxRedirects: 0,
	})
	expect(response.status()).toBe(302)
	const id = await withDatabase(
		async (db) =>
			(await db.query('select id from auth.users where email = $1', [email])).rows[0].id as string,
	)
	return { c, email, id }
}

async function adminClient(baseURL: string) {
	const c = await client(baseURL)
	const response = await c.post('/admin-login', { form: ADMIN, maxRedirects: 0 })
	expect(response.status()).toBe(302)
	return c
}

async function balanceOf(id: string) {
	return withDatabase(async (db) =>
		Number(
			(await db.query('select balance from credit_balances where user_id = $1', [id])).rows[0]
				?.balance ?? 0,
		),
	)
}

test.describe('over HTTP', () => {
	test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, 'HTTP only; once')

	test('the role matrix: admin changes, editor looks (403 on changes), others are sent away', async ({
		baseURL,
	}) => {
		const admin = await adminClient(baseURL!)
		const editor = await signedUp(baseURL!)
		const user = await signedUp(baseURL!)
		const member = await signedUp(baseURL!)
		const target = await signedUp(baseURL!)
		await withDatabase(async (db) => {
			await db.query(`insert into roles (user_id, role) values ($1, 'editor')`, [editor.id])
			await db.query(
				`insert into team_members (user_id, email, role, member_user_id, status)
				values ($1, $2, 'admin', $3, 'active')`,
				[user.id, member.email, member.id],
			)
			await db.query('update profiles set primary_user_id = $1 where user_id = $2', [
				user.id,
				member.id,
			])
		})
		const clients: Record<string, APIRequestContext> = {
			admin,
			editor: editor.c,
			user: user.c,
			member: member.c,
		}
		const userPage = `/admin-dashboard/users/${target.id}`
		const pages = [
			'/admin-dashboard',
			userPage,
			'/admin-dashboard/plans',
			'/admin-dashboard/jobs',
			'/admin-dashboard/templates',
			'/admin-dashboard/audit',
		]
		const changes: [string, Record<string, string>][] = [
			[userPage, { intent: 'credits', direction: 'grant', amount: '5', note: 'matrix grant' }],
			[userPage, { intent: 'ltd', isLtd: 'true' }],
			[userPage, { intent: 'role', role: 'none' }],
			[userPage, { intent: 'extend', plan: '1', days: '3' }],
			[userPage, { intent: 'ban' }],
			[userPage, { intent: 'unban' }],
			[userPage, { intent: 'cancel-subscription' }],
			['/admin-dashboard', { intent: 'run-checks' }],
			[
				'/admin-dashboard/templates',
				{
					intent: 'create-template',
					name: 'Matrix',
					url: 'https://app.apollo.io/#/people?personTitles[]={{title}}',
				},
			],
			[
				'/admin-dashboard/jobs',
				{ intent: 'retry', queue: 'dns-check', jobId: '00000000-0000-4000-8000-000000000000' },
			],
		]
		const outcome: Record<string, (number | string)[]> = {}
		// the admin last, so that its changes do not decide the others' cells
		for (const name of ['editor', 'user', 'member', 'admin']) {
			const c = clients[name]!
			const cells: (number | string)[] = []
			for (const path of pages) {
				const r = await c.get(path, { maxRedirects: 0 })
				cells.push(r.status() === 302 ? `302 ${r.headers()['location']}` : r.status())
			}
			for (const [path, form] of changes) {
				const r = await c.post(path, { form, maxRedirects: 0 })
				cells.push(r.status() === 302 ? `302 ${r.headers()['location']}` : r.status())
			}
			outcome[name] = cells
		}
		const away = '302 /admin-login'
		const look = pages.map(() => 200)
		expect(outcome).toEqual({
			editor: [...look, ...changes.map(() => 403)],
			user: [...pages.map(() => away), ...changes.map(() => away)],
			member: [...pages.map(() => away), ...changes.map(() => away)],
			admin: [
				...look,
				...changes.slice(0, 7).map(() => `302 ${userPage}`),
				'302 /admin-dashboard',
				'302 /admin-dashboard/templates',
				404,
			],
		})
		expect(await balanceOf(target.id)).toBe(5)
		const actions = await withDatabase(async (db) =>
			(
				await db.query(
					`select action from audit_log where actor_user_id = (select id from auth.users where email = $1)
						and (target_id = $2::text or target_type = 'subscription' and target_id in
							(select id::text from subscriptions where user_id = $2::uuid))
						order by created_at`,
					[ADMIN.email, target.id],
				)
			).rows.map((r) => r.action),
		)
		expect(actions).toEqual([
			'admin.credits.grant',
			'admin.user.ltd',
			'admin.user.role',
			'admin.subscription.grant',
			'admin.user.ban',
			'admin.user.unban',
			'admin.subscription.cancel',
		])
	})

	test('bad input: zero, fractional and negative-driving amounts; unknown users', async ({
		baseURL,
	}) => {
		const admin = await adminClient(baseURL!)
		const target = await signedUp(baseURL!)
		const path = `/admin-dashboard/users/${target.id}`
		for (const amount of ['0', '1.5', '-3', 'many']) {
			const r = await admin.post(path, {
				form: { intent: 'credits', formKey: 'credits', direction: 'grant', amount, note: 'bad' },
			})
			expect(r.status(), amount).toBe(400)
		}
		const r = await admin.post(path, {
			form: {
				intent: 'credits',
				formKey: 'credits',
				direction: 'deduct',
				amount: '1',
				note: 'x y',
			},
		})
		expect(r.status()).toBe(400)
		expect(await r.text()).toContain('cannot go below zero')
		expect(await balanceOf(target.id)).toBe(0)
		for (const id of ['00000000-0000-4000-8000-000000000000', 'nobody']) {
			expect((await admin.get(`/admin-dashboard/users/${id}`)).status()).toBe(404)
			const post = await admin.post(`/admin-dashboard/users/${id}`, {
				form: { intent: 'ltd', isLtd: 'true' },
				maxRedirects: 0,
			})
			expect(post.status()).toBe(404)
		}
	})

	test('/healthz and /readyz answer for load balancers', async ({ request }) => {
		expect((await request.get('/healthz')).status()).toBe(200)
		const ready = await request.get('/readyz')
		expect(ready.status()).toBe(200)
		expect(await ready.text()).toContain('database: ok')
	})
})

async function adminSignIn(page: Page) {
	await page.goto('/admin-login')
	await signIn(page, ADMIN.email, ADMIN.password)
	await page.waitForURL('**/admin-dashboard')
}

test('the admin forms: credits, LTD, ban, plans, templates, jobs and the audit log @no-js', async ({
	page,
	baseURL,
}) => {
	test.setTimeout(90_000) // many page loads on a busy machine
	const target = await signedUp(baseURL!)
	await adminSignIn(page)
	await page.getByLabel('Email contains').fill(target.email)
	await page.getByRole('button', { name: 'Search' }).click()
	await page.getByRole('link', { name: target.email }).click()
	await expect(page.getByRole('heading', { name: target.email })).toBeVisible()

	await page.getByLabel('Amount').fill('25')
	await page.getByLabel('Reason').fill('welcome gift')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page.getByText('25 credits granted; balance 25')).toBeVisible()

	await page.getByLabel('Deduct').check()
	await page.getByLabel('Amount').fill('100')
	await page.getByLabel('Reason').fill('correction')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page.getByText('The balance is 25; it cannot go below zero.')).toBeVisible()

	await page.getByRole('button', { name: 'Set lifetime deal' }).click()
	await expect(page.getByText('Lifetime deal set')).toBeVisible()
	await expect(page.getByRole('button', { name: 'Clear lifetime deal' })).toBeVisible()

	await page.getByRole('button', { name: 'Ban sign-in' }).click()
	await expect(page.getByText('Sign-in banned')).toBeVisible()
	await page.getByRole('button', { name: 'Unban sign-in' }).click()
	await expect(page.getByText('Sign-in allowed again')).toBeVisible()

	await page.goto('/admin-dashboard/audit')
	await page.getByLabel('Target id').fill(target.id)
	await page.getByRole('button', { name: 'Filter' }).click()
	await page.waitForURL(/target=/)
	// exactly this user's entries once the filtered page is in
	await expect(page.getByRole('cell', { name: 'admin.credits.grant' })).toHaveCount(1)
	await expect(page.getByRole('cell', { name: 'admin.user.ban', exact: true })).toHaveCount(1)

	await page.goto('/admin-dashboard/templates')
	const name = `Titles ${Date.now()}`
	await page.getByLabel('Name').first().fill(name)
	await page
		.getByLabel('Apollo search address')
		.first()
		.fill('https://app.apollo.io/#/people?personTitles[]={{title}}')
	await page.getByRole('button', { name: 'Create template' }).click()
	await expect(page.getByText(`Template “${name}” created`)).toBeVisible()
	await page.getByRole('button', { name: `Delete ${name}` }).click()
	await expect(page.getByText(`Template “${name}” deleted`)).toBeVisible()

	await page.goto('/admin-dashboard/plans')
	await expect(page.getByRole('heading', { name: 'Price plans and credit packs' })).toBeVisible()
	await page.goto('/admin-dashboard/jobs')
	await expect(page.getByRole('heading', { name: 'Jobs', exact: true })).toBeVisible()
	await page.goto('/admin-dashboard')
	await page.getByRole('button', { name: 'Run checks now' }).click()
	await expect(page.getByText(/Checks done/)).toBeVisible()
	await expect(page.getByRole('cell', { name: 'database', exact: true })).toBeVisible()
})

test('an editor sees the admin area without any changing form', async ({ page, baseURL }) => {
	const editor = await signedUp(baseURL!)
	await withDatabase((db) =>
		db.query(`insert into roles (user_id, role) values ($1, 'editor')`, [editor.id]),
	)
	await page.goto('/admin-login')
	await signIn(page, editor.email, PASSWORD)
	await page.waitForURL('**/admin-dashboard')
	await expect(page.getByText('Platform editor: you may look, not change.')).toBeVisible()
	await page.goto(`/admin-dashboard/users/${editor.id}`)
	await expect(page.getByRole('heading', { name: 'Credit ledger' })).toBeVisible()
	await expect(page.getByRole('button', { name: 'Apply' })).toHaveCount(0)
})

test('an inbox order is fulfilled from a CSV of credentials, checked row by row @no-js', async ({
	page,
	baseURL,
}) => {
	test.setTimeout(60_000)
	const owner = await signedUp(baseURL!)
	const domain = `inbox-${owner.id.slice(0, 8)}.com`
	const orderId = await withDatabase(async (db) => {
		const d = await db.query(
			`insert into domains (user_id, name, source) values ($1, $2, 'imported') returning id`,
			[owner.id, domain],
		)
		const o = await db.query(
			`insert into inbox_orders (user_id, provider, inboxes_per_domain, domain_ids, total_cents,
				price_cents, quantity)
			values ($1, 'google', 1, array[$2::uuid], 300, 300, 1) returning id`,
			[owner.id, d.rows[0].id],
		)
		return o.rows[0].id as string
	})
	await adminSignIn(page)
	await page.goto('/admin-dashboard/inbox-orders?status=pending')
	const card = page.locator('section', { hasText: orderId })
	await card.getByRole('button', { name: 'Mark processing' }).click()
	await expect(page.getByText('Order marked processing')).toBeVisible()
	const header = 'email,first_name,last_name,password,smtp_host,smtp_port,imap_host,imap_port'
	const row = (address: string) =>
		`${address},Ada,Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
	await page.goto('/admin-dashboard/inbox-orders?status=processing')
	await card.getByLabel('Credentials CSV').fill([header, row('ada@unknown.test')].join('\n'))
	await card.getByRole('button', { name: 'Fulfil' }).click()
	await expect(
		page.getByText(/Line 2: unknown\.test is not one of this order's domains/),
	).toBeVisible()
	await card.getByLabel('Credentials CSV').fill([header, row(`ada@${domain}`)].join('\n'))
	// paid more than a month ago, and still waiting: the paid month starts at delivery
	await withDatabase((db) =>
		db.query(
			`update inbox_orders set billing_date = now() - interval '40 days',
				paid_through = now() - interval '10 days' where id = $1`,
			[orderId],
		),
	)
	const pending = await (await owner.c.get('/ordering-inboxes')).text()
	expect(pending).toContain('Billing starts when your inboxes are ready')
	await card.getByRole('button', { name: 'Fulfil' }).click()
	await expect(page.getByText('Order fulfilled: 1 inboxes created')).toBeVisible()
	// the month runs from delivery: billed from now, paid through a month from now
	const billing = await withDatabase(
		async (db) =>
			(
				await db.query<{ started_ago: number; paid_through: Date; a_month: boolean }>(
					`select extract(epoch from now() - billing_date) as started_ago, paid_through,
						paid_through = billing_date + interval '1 month' as a_month
					from inbox_orders where id = $1`,
					[orderId],
				)
			).rows[0]!,
	)
	expect(Number(billing.started_ago)).toBeLessThan(60)
	expect(billing.a_month).toBe(true)
	const paidThrough = billing.paid_through
	const renews = `Renews ${paidThrough.toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' })}`
	const inboxes = await withDatabase(
		async (db) =>
			(await db.query('select address from inboxes where order_id = $1', [orderId])).rows,
	)
	expect(inboxes).toEqual([{ address: `ada@${domain}` }])

	// and the owner finds them on Inboxes Management
	const mine = await owner.c.get('/inboxes')
	expect(mine.status()).toBe(200)
	const html = await mine.text()
	expect(html).toContain('Inboxes Management')
	expect(html).toContain(`ada@${domain}`)
	expect(html).toContain(renews)
	const orders = await (await owner.c.get('/ordering-inboxes')).text()
	expect(orders).toContain(renews)
	expect(orders).not.toContain('Billing starts when your inboxes are ready')
})

// "Retry refund" needs an order paid through Stripe: a server of its own whose Stripe is a fake
// this test drives (tests/fakes/stripe), one per project (each on its own ports).
test.describe('an order paid through Stripe', () => {
	test.describe.configure({ mode: 'serial', timeout: 60_000 })
	let server: KeyedServer
	let stripe: FakeStripe

	// eslint-disable-next-line no-empty-pattern -- Playwright wants a pattern before testInfo
	test.beforeAll(async ({}, testInfo) => {
		test.setTimeout(180_000)
		stripe = await startFakeStripe()
		server = await startKeyedServer({
			offset: testInfo.project.name === 'js' ? 41 : 43,
			posthog: false,
			env: {
				ADMIN_EMAIL: ADMIN.email,
				ADMIN_PASSWORD: ADMIN.password,
				STRIPE_SECRET_KEY: stripe.secretKey,
				STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
				STRIPE_API_BASE: stripe.url,
			},
		})
	})

	test.afterAll(async () => {
		await server?.stop()
		await stripe?.close()
	})

	/** An order in processing, paid at a Stripe Checkout: a subscription with its paid invoice. */
	async function paidThroughStripe() {
		const email = uniqueEmail('str')
		const owner = await (
			await client(server.baseURL)
		).post('/signup', {
			form: { fullName: 'Stripe Owner', email, password: PASSWORD },
			maxRedirects: 0,
		})
		expect(owner.status()).toBe(302)
		const checkout = await fetch(`${stripe.url}/v1/checkout/sessions`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${stripe.secretKey}` },
			body: new URLSearchParams({
				mode: 'subscription',
				success_url: `${server.baseURL}/inboxes`,
				'line_items[0][quantity]': '1',
				'line_items[0][price_data][currency]': 'usd',
				'line_items[0][price_data][unit_amount]': '300',
				'line_items[0][price_data][recurring][interval]': 'month',
				'line_items[0][price_data][product_data][name]': 'Inboxes',
			}),
		})
		const session = (await checkout.json()) as { id: string }
		const { subscription, invoice } = stripe.paySession(session.id)
		const orderId = await withDatabase(async (db) => {
			const user = await db.query('select id from auth.users where email = $1', [email])
			const userId = user.rows[0].id as string
			const domain = await db.query(
				`insert into domains (user_id, name, source) values ($1, $2, 'imported') returning id`,
				[userId, `stripe-${userId.slice(0, 8)}.com`],
			)
			const order = await db.query(
				`insert into inbox_orders (user_id, provider, status, inboxes_per_domain, domain_ids,
					total_cents, payment_reference, billing_provider, provider_subscription_id,
					price_cents, quantity, billing_date, paid_through)
				values ($1, 'google', 1, 1, array[$2::uuid], 300, $3, 'stripe', $4, 300, 1,
					now(), now() + interval '1 month')
				returning id`,
				[userId, domain.rows[0].id, `stripe:${session.id}`, subscription!.id],
			)
			return order.rows[0].id as string
		}, server.dbPort)
		return { orderId, payment: invoice!.__payment_intent as string }
	}

	test('a refund Stripe did not confirm is retried from the order with "Retry refund" @no-js', async ({
		browser,
		javaScriptEnabled,
	}) => {
		const { orderId, payment } = await paidThroughStripe()
		const context = await browser.newContext({ baseURL: server.baseURL, javaScriptEnabled })
		const page = await context.newPage()
		await adminSignIn(page)
		await page.goto('/admin-dashboard/inbox-orders?status=processing')
		const card = page.locator('section', { hasText: orderId })

		// Stripe refunds, but neither its answer nor the SDK's retry's answer arrives
		stripe.loseNext('POST /v1/refunds', 2)
		await card.getByLabel('Why it failed').fill('The provider refused the domain')
		await card.getByRole('button', { name: 'Fail and refund' }).click()
		// the order did fail: the page shows it among the failed ones, with JavaScript or without
		await expect(
			page.getByText(
				'The order is failed, but the payment provider did not confirm its refund. Try again to refund it.',
			),
		).toBeVisible()
		await expect(page).toHaveURL(/status=fail$/)
		await expect
			.poll(() => stripe.refunds.filter((r) => r.payment_intent === payment))
			.toHaveLength(1)

		await expect(card.getByText('Refund pending: it did not go through yet.')).toBeVisible()
		await expect(card).toContainText('Reason: The provider refused the domain')
		await card.getByRole('button', { name: 'Retry refund' }).click()
		await expect(page.getByText('Order failed and refunded')).toBeVisible()
		await page.goto('/admin-dashboard/inbox-orders?status=fail')
		await expect(card).toContainText('; refunded ')
		await expect(card.getByRole('button', { name: 'Retry refund' })).toHaveCount(0)
		await expect(card).toContainText('Reason: The provider refused the domain')

		// Stripe refunded once: the retry's idempotency key got the first refund back
		expect(stripe.refunds.filter((r) => r.payment_intent === payment)).toHaveLength(1)
		const order = await withDatabase(
			async (db) =>
				(
					await db.query(
						'select status, refund_cents, refunded_at from inbox_orders where id = $1',
						[orderId],
					)
				).rows[0],
			server.dbPort,
		)
		expect(order).toMatchObject({ status: 3, refund_cents: 300 })
		expect(order.refunded_at).toBeInstanceOf(Date)
		await context.close()
	})
})
