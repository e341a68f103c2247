import { expect, test } from '@playwright/test'
import { accountOf, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, signIn, withDatabase } from './support.ts'

// Order inboxes: quote (writes nothing), then /checkout, then the test payment creates the
// order. With JavaScript on and off.
test.describe.configure({ timeout: 90_000 })

async function ordersOf(email: string) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ status: number; total_cents: number }>(
			`select o.status, o.total_cents from inbox_orders o join auth.users u on u.id = o.user_id
			where u.email = $1`,
			[email],
		)
		return rows
	})
}

test('generate names fills the persona names and keeps the rest of the form @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const [a, b] = [uniqueDomain('ga'), uniqueDomain('gb')]
	await subscribedDomains(email, [a, b])
	await page.goto('/ordering-inboxes')
	await page.getByLabel(b).check()
	await page.getByLabel('Inboxes a domain').fill('2')
	await page.getByRole('button', { name: 'Generate names' }).click()
	const names = page.getByLabel('Persona names')
	await expect(names).toHaveValue(/^[A-Z][a-z]+ [A-Z][a-z]+(\n[A-Z][a-z]+ [A-Z][a-z]+){4}$/)
	await expect(page.getByLabel(b)).toBeChecked()
	await expect(page.getByLabel(a)).not.toBeChecked()
	await expect(page.getByLabel('Inboxes a domain')).toHaveValue('2')
	// no quote was asked for: no messages yet
	await expect(page.getByText('Pick at least one domain.')).toHaveCount(0)
	const generated = (await names.inputValue()).split('\n')
	await page.getByRole('button', { name: 'Get a quote' }).click()
	await expect(page.getByTestId('quote-summary')).toHaveText('2 inboxes × $3.00 = $6.00 a month')
	const first = generated[0]!.split(' ')[0]!.toLowerCase()
	await expect(page.getByText(new RegExp(`${first}@${b.replace(/\./g, '\\.')}`))).toBeVisible()
	expect(await ordersOf(email)).toEqual([])
})

test('quote then pay: the order exists only after payment @no-js', async ({ page }, testInfo) => {
	const { email } = await subscribedAccount(page)
	const [a, b] = [uniqueDomain('ia'), uniqueDomain('ib')]
	await subscribedDomains(email, [a, b])
	await page.goto('/ordering-inboxes')
	await expect(page.getByRole('heading', { name: 'Order inboxes', level: 1 })).toBeVisible()
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)

	// Bad input first, each corrected and sent again in the same page (with JavaScript, a click
	// right after the fix must still submit): no domain, all domains unticked, too many inboxes,
	// names an address cannot hold (refused by the server).
	const quote = page.getByRole('button', { name: 'Get a quote' })
	await quote.click()
	await expect(page.getByText('Pick at least one domain.')).toBeVisible()
	await page.getByLabel(a).check()
	await page.getByLabel(a).uncheck()
	await page.getByLabel('Persona names').fill('Ada Lovelace')
	await quote.click()
	await expect(page.getByText('Pick at least one domain.')).toBeVisible()
	await page.getByLabel(a).check()
	await page.getByLabel(b).check()
	await page.getByLabel('Inboxes a domain').fill('6')
	await quote.click()
	await expect(page.getByText('Google takes 1 to 5 inboxes a domain.')).toBeVisible()
	await expect(page.getByText('Pick at least one domain.')).toHaveCount(0)
	await page.getByLabel('Inboxes a domain').fill('2')
	await page.getByLabel('Persona names').fill('J@ne Doe')
	await quote.click()
	await expect(page.getByText('has characters an email address cannot hold')).toBeVisible()
	await expect(page.getByText('Google takes 1 to 5 inboxes a domain.')).toHaveCount(0)
	await page.getByLabel('Persona names').fill('Ada Lovelace\nGrace Hopper')
	await quote.click()
	await expect(page.getByTestId('quote-summary')).toHaveText('4 inboxes × $3.00 = $12.00 a month')
	await expect(page.getByText(`ada@${a}, grace@${a}`)).toBeVisible()
	expect(await ordersOf(email)).toEqual([])

	await page.getByRole('link', { name: 'Continue to checkout' }).click()
	await expect(page).toHaveURL(/\/checkout\?order=/)
	await expect(page.getByTestId('checkout-total')).toHaveText('$12.00 a month')
	expect(await ordersOf(email)).toEqual([])
	await page.getByRole('button', { name: 'Pay $12.00' }).click()
	await expect(page).toHaveURL(/\/test-payment\//)
	await page.getByRole('button', { name: 'Pay $12.00 (test)' }).click()

	await expect(page).toHaveURL(/\/inboxes/)
	await expect(page.getByRole('heading', { name: 'Inboxes Management', level: 1 })).toBeVisible()
	await expect(page).toHaveTitle(/^Inboxes Management \|/)
	await expect(page.getByTestId('pending-orders')).toContainText('4 inboxes ($12.00')
	// paid, but the paid month starts when the inboxes are delivered
	await expect(page.getByTestId('pending-billing')).toContainText(
		'Billing starts when your inboxes are ready',
	)

	// the inbox-order job plans the exact addresses and hands the order to the admins
	await expect(async () => {
		await page.reload()
		await expect(page.getByTestId('planned-addresses')).toContainText(
			`ada@${a}, grace@${a}, ada@${b}, grace@${b}`,
			{ timeout: 1_000 },
		)
	}).toPass({ timeout: 30_000 })
	expect(await ordersOf(email)).toEqual([{ status: 1, total_cents: 1200 }])
	await page.goto('/ordering-inboxes')
	await expect(page.getByTestId('orders')).toContainText('processing')
	await expect(page.getByTestId('order-billing')).toHaveText(
		'Billing starts when your inboxes are ready',
	)
	await expect(page.getByTestId('orders').getByTestId('planned-addresses')).toContainText(
		`ada@${a}, grace@${a}`,
	)
	const mails = await withDatabase(async (client) => {
		const { rows } = await client.query<{ subject: string }>(
			`select subject from mailbox where to_address = 'admin@e2e.test' and text_body like $1`,
			[`%ada@${a}%`],
		)
		return rows
	})
	expect(mails).toEqual([{ subject: 'Inbox order to set up: 4 Google Workspace inboxes' }])

	// the admin sees the addresses to create on the order
	await page.context().clearCookies()
	await page.goto('/admin-login')
	await signIn(page, 'admin@e2e.test', 'admin-password-1')
	await page.waitForURL('**/admin-dashboard')
	await page.goto('/admin-dashboard/inbox-orders?status=processing')
	await expect(
		page.locator('section', { hasText: email }).getByTestId('planned-inboxes'),
	).toContainText(`grace@${b} (Grace Hopper)`)
})

test('an expired domain cannot take inboxes @no-js', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	const [ok] = [uniqueDomain('ok')]
	const [okId] = await subscribedDomains(email, [ok])
	await page.goto('/ordering-inboxes')
	await expect(page.getByLabel(ok)).toBeVisible()
	// cancelled and its month over: an active one past its end would be renewed by the
	// test-mode renewal job if it ran meanwhile (a CI run saw that happen)
	await withDatabase((client) =>
		client.query(
			`update domain_subscriptions set cancel_at_period_end = true,
				expire_date = now() - interval '1 day'
			where domain_id = $1`,
			[okId],
		),
	)
	await page.getByLabel(ok).check()
	await page.getByLabel('Persona names').fill('Ada Lovelace\nGrace Hopper\nAlan Turing')
	await page.getByRole('button', { name: 'Get a quote' }).click()
	await expect(page.getByText('no active domain subscription')).toBeVisible()
	await page.goto('/ordering-inboxes')
	await expect(page.getByLabel(ok)).toHaveCount(0)
})

/** A date as the app shows it (formatDate: medium, UTC). */
function shown(date: Date) {
	return date.toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' })
}

test('inboxes: renewal date, cancel at period end, resume; an ended inbox shows its date @no-js', async ({
	page,
	browser,
}) => {
	const { email } = await subscribedAccount(page)
	const domain = uniqueDomain('mbox')
	const [domainId] = await subscribedDomains(email, [domain])
	const { userId, workspaceId } = await accountOf(email)
	const [ada, grace] = [`ada@${domain}`, `grace@${domain}`]
	const { paidThrough, endedAt, adaId } = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string; paid_through: Date }>(
			`insert into inbox_orders (user_id, workspace_id, provider, status, inboxes_per_domain,
				domain_ids, total_cents, billing_provider, price_cents, quantity, billing_date, paid_through)
			values ($1, $2, 'google', 2, 2, array[$3::uuid], 600, 'test', 300, 1, now(),
				now() + interval '20 days')
			returning id, paid_through`,
			[userId, workspaceId, domainId],
		)
		const order = rows[0]!
		const { rows: inboxes } = await client.query<{ id: string; address: string }>(
			`insert into inboxes (user_id, workspace_id, order_id, domain_id, provider, address,
				first_name, last_name, status, period_end)
			values ($1, $2, $3, $4, 'google', $5, 'Ada', 'Lovelace', 'active', $6)
			returning id, address`,
			[userId, workspaceId, order.id, domainId, ada, order.paid_through],
		)
		// Grace was cancelled last month and has ended
		const { rows: ended } = await client.query<{ ended_at: Date }>(
			`insert into inboxes (user_id, workspace_id, order_id, domain_id, provider, address,
				first_name, last_name, status, cancel_at_period_end, period_end, ended_at)
			values ($1, $2, $3, $4, 'google', $5, 'Grace', 'Hopper', 'cancelled', true,
				now() - interval '10 days', now() - interval '10 days')
			returning ended_at`,
			[userId, workspaceId, order.id, domainId, grace],
		)
		return { paidThrough: order.paid_through, endedAt: ended[0]!.ended_at, adaId: inboxes[0]!.id }
	})

	await page.goto('/inboxes')
	await expect(page.getByRole('heading', { name: 'Inboxes Management', level: 1 })).toBeVisible()
	const adaRow = page.locator(`tr[data-inbox="${ada}"]`)
	await expect(adaRow).toContainText('active')
	await expect(adaRow).toContainText(`Renews ${shown(paidThrough)}`)
	const graceRow = page.locator(`tr[data-inbox="${grace}"]`)
	await expect(graceRow).toContainText('cancelled')
	await expect(graceRow).toContainText(`Ended ${shown(endedAt)}`)
	await expect(graceRow.getByRole('button')).toHaveCount(0)

	await page.getByRole('button', { name: `Cancel at period end ${ada}` }).click()
	await expect(page.getByText(`${ada} ends on ${shown(paidThrough)}`)).toBeVisible()
	await expect(adaRow).toContainText('cancelled at period end')
	await expect(adaRow).toContainText(`Ends ${shown(paidThrough)}`)

	await page.getByRole('button', { name: `Resume ${ada}` }).click()
	await expect(page.getByText(`${ada} renews as usual`)).toBeVisible()
	await expect(adaRow).toContainText(`Renews ${shown(paidThrough)}`)

	// the export holds the live inbox only
	const csv = await (await page.request.get('/inboxes/export')).text()
	expect(csv).toContain(ada)
	expect(csv).not.toContain(grace)

	// another account's inbox is 404
	const other = await browser.newPage()
	await subscribedAccount(other)
	const post = await other.request.post('/inboxes', {
		form: { intent: 'cancel', id: adaId },
		maxRedirects: 0,
	})
	expect(post.status()).toBe(404)
	await other.close()
})

test('on a phone the quote comes into view once it is ready', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	const [a] = [uniqueDomain('phone')]
	await subscribedDomains(email, [a])
	await page.setViewportSize({ width: 390, height: 800 })
	await page.goto('/ordering-inboxes')
	await page.getByLabel(a).check()
	await page.getByLabel('Inboxes a domain').fill('2')
	await page.getByLabel('Persona names').fill('Ada Lovelace')
	await page.getByRole('button', { name: 'Get a quote' }).click()
	await expect(page.getByTestId('quote-summary')).toHaveText('2 inboxes × $3.00 = $6.00 a month')
	await expect(page.getByRole('heading', { name: 'Your quote' })).toBeInViewport()
	await expect(page.getByRole('link', { name: 'Continue to checkout' })).toBeInViewport()
})
