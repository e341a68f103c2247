// Issue 16: flows a newcomer walks through, with JavaScript on and off. Points 2 (cancel means
// cancel), 4 (partial inbox orders), 6 (password reset from any browser, or by code) and 9
// (lifetime deals and plan changes).
import { expect as baseExpect, test, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { lastMailId, latestMail } from './mail.ts'
import { jsEnabled, PASSWORD, signedUp, signIn, signOut, withDatabase } from './support.ts'

// A busy machine answers slowly: wait for what a user waits for, up to 30 s.
const expect = baseExpect.configure({ timeout: 30_000 })

const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

async function userId(email: string) {
	return withDatabase(
		async (db) =>
			(await db.query('select id from auth.users where email = $1', [email])).rows[0].id as string,
	)
}

async function balanceOf(email: string) {
	return withDatabase(async (db) =>
		Number(
			(
				await db.query(
					`select b.balance from credit_balances b join auth.users u on u.id = b.user_id
					where u.email = $1`,
					[email],
				)
			).rows[0]?.balance ?? 0,
		),
	)
}

test.describe('cancel means cancel', () => {
	test('a lead scrape cancelled midway keeps and charges only what it wrote @no-js', async ({
		page,
	}, testInfo) => {
		test.setTimeout(240_000)
		const { email } = await subscribedAccount(page, { credits: 5000 })
		await page.goto('/create-leads')
		// the fake Apify answers each page of 1,000 slowly, so the cancel lands mid-scrape
		await page
			.getByLabel('Apollo people search')
			.fill('https://app.apollo.io/#/people?personTitles[]=cfo&fakePageDelayMs=8000')
		if (!jsEnabled(testInfo)) await page.getByRole('button', { name: 'Check the search' }).click()
		await page.getByLabel('List name').fill('Cancelled CFOs')
		await page.getByLabel('How many leads').fill('4000')
		await page.getByLabel('Credits').check()
		await page.getByRole('button', { name: 'Create lead list' }).click()
		await expect(page).toHaveURL(/\/scrape/)
		const row = page.getByTestId('scrape-row').filter({ hasText: 'Cancelled CFOs' })
		await expect(async () => {
			await page.reload()
			await expect(row.getByTestId('found')).toHaveText('1,000', { timeout: 500 })
		}).toPass({ timeout: 120_000 })
		// a running search is stopped only once the confirm step says what it costs
		await expect(row.getByRole('button', { name: 'Stop “Cancelled CFOs”' })).toBeHidden()
		await row.locator('summary', { hasText: /^Cancel/ }).click()
		await expect(row.getByText('found so far are kept and charged')).toBeVisible()
		await row.getByRole('button', { name: 'Stop “Cancelled CFOs”' }).click()
		await expect(row.getByText('Cancelled', { exact: true })).toBeVisible({ timeout: 20_000 })

		// one final status; the list, its leads and the ledger agree
		let kept: number | undefined
		const agree = async () => {
			await page.goto('/scrape')
			await expect(row.getByText('Cancelled', { exact: true })).toBeVisible()
			await expect(row.getByText('Failed')).toHaveCount(0)
			const found = Number(((await row.getByTestId('found').textContent()) ?? '').replace(',', ''))
			// what was written before the cancel (whole pages of 1,000), never the whole search
			expect([1000, 2000, 3000]).toContain(found)
			kept ??= found
			expect(found).toBe(kept)
			const leads = await withDatabase(
				async (db) =>
					(
						await db.query(
							`select count(*)::int as n from leads l join processing_list p on p.id = l.list_id
							where p.name = 'Cancelled CFOs' and p.user_id = (select id from auth.users where email = $1)`,
							[email],
						)
					).rows[0].n as number,
			)
			expect(leads).toBe(found)
			expect(await balanceOf(email)).toBe(5000 - found)
		}
		await agree()
		// ... and still after the job would have gone on
		await expect
			.poll(
				() =>
					withDatabase(async (db) =>
						(
							await db.query(
								`select j.state from pgboss.job j join apollo_requests r on j.data->>'requestId' = r.id::text
									join processing_list p on p.id = r.list_id
									where j.name = 'lead-scrape' and p.name = 'Cancelled CFOs'
										and p.user_id = (select id from auth.users where email = $1)`,
								[email],
							)
						).rows.map((r) => r.state as string),
					),
				{ timeout: 30_000 },
			)
			.toEqual(['completed'])
		await agree()
	})
})

test.describe('inbox orders', () => {
	async function adminSignIn(page: Page) {
		await page.goto('/admin-login')
		await signIn(page, ADMIN.email, ADMIN.password)
		await page.waitForURL('**/admin-dashboard')
	}

	test('2 of 3 inboxes delivered: the order stays open, unbilled, until the third @no-js', async ({
		page,
	}) => {
		test.setTimeout(180_000)
		const { email } = await signedUp(page)
		await signOut(page)
		const owner = await userId(email)
		const domain = `part-${owner.slice(0, 8)}.com`
		const orderId = await withDatabase(async (db) => {
			const d = await db.query(
				`insert into domains (user_id, name, source) values ($1, $2, 'imported') returning id`,
				[owner, domain],
			)
			const o = await db.query(
				`insert into inbox_orders (user_id, provider, inboxes_per_domain, domain_ids, total_cents,
					price_cents, quantity, status, billing_status, billing_provider)
				values ($1, 'google', 3, array[$2::uuid], 900, 300, 3, 1, 'active', 'test') returning id`,
				[owner, d.rows[0].id],
			)
			return o.rows[0].id as string
		})
		const header = 'email,first_name,last_name,password,smtp_host,smtp_port,imap_host,imap_port'
		const row = (name: string) =>
			`${name}@${domain},${name},Lovelace,s3cret-pass,smtp.gmail.com,587,imap.gmail.com,993`
		await adminSignIn(page)
		await page.goto('/admin-dashboard/inbox-orders?status=processing')
		const card = page.locator('section', { hasText: orderId })
		await card.getByLabel('Credentials CSV').fill([header, row('ada'), row('bob')].join('\n'))
		await card.getByRole('button', { name: 'Fulfil' }).click()
		await expect(page.getByText('2 inboxes created: 2 of 3 delivered')).toBeVisible({
			timeout: 20_000,
		})

		const order = () =>
			withDatabase(
				async (db) =>
					(
						await db.query(
							`select status, fulfilled_at, billing_date, paid_through,
								(select count(*)::int from inboxes where order_id = o.id) as inboxes
							from inbox_orders o where id = $1`,
							[orderId],
						)
					).rows[0],
			)
		const partial = await order()
		expect(partial).toMatchObject({ status: 1, fulfilled_at: null, inboxes: 2 })
		// still with the admins, saying what is left
		await page.goto('/admin-dashboard/inbox-orders?status=processing')
		await expect(card.getByTestId('delivered')).toHaveText(
			'2 of 3 inboxes delivered; 1 still to deliver',
		)

		await card.getByLabel('Credentials CSV').fill([header, row('cy')].join('\n'))
		await card.getByRole('button', { name: 'Fulfil' }).click()
		await expect(page.getByText('Order fulfilled: 1 inboxes created')).toBeVisible()
		const done = await order()
		expect(done).toMatchObject({ status: 2, inboxes: 3 })
		// the paid month starts with the last inbox
		expect(Date.now() - new Date(done.billing_date).getTime()).toBeLessThan(120_000)

		// the owner's "inboxes are ready" mail links to Inboxes Management (no full stop in it)
		const ready = await latestMail(email)
		expect(ready.subject).toBe('Your 3 inboxes are ready')
		await signOut(page)
		await page.goto(ready.link!)
		await signIn(page, email)
		await expect(page).toHaveURL(/\/inboxes$/)
		await expect(page.getByRole('heading', { name: 'Inboxes Management' })).toBeVisible()
	})
})

test.describe('password reset', () => {
	// sign-up, sign-out and two mails on a busy machine
	test.describe.configure({ timeout: 180_000 })
	async function askForReset(page: Page) {
		const { email } = await signedUp(page)
		await signOut(page)
		// read once: waiting for a mail that never comes would take the whole expect timeout
		const before = await lastMailId(email)
		await page.goto('/forgot-password')
		await page.getByLabel('Email', { exact: true }).fill(email)
		await page.getByRole('button', { name: 'Send reset link' }).click()
		await expect(page).toHaveURL(/\/reset-password\?email=/)
		await expect(
			page.getByText('If an account exists for that email, we sent a link'),
		).toBeVisible()
		return { email, mail: await latestMail(email, { after: before }) }
	}

	test('the mailed link works in another browser (no cookies from the request) @no-js', async ({
		page,
		browser,
		baseURL,
	}, testInfo) => {
		const { email, mail } = await askForReset(page)
		expect(mail.subject).toBe('Reset your Leadsmith password')
		expect(mail.link).toContain('/auth/confirm?')
		const phone = await browser.newContext({ baseURL, javaScriptEnabled: jsEnabled(testInfo) })
		try {
			const other = await phone.newPage()
			await other.goto(mail.link!)
			// opening the link spends nothing; continuing does (decision 0056)
			await other.getByRole('button', { name: 'Continue' }).click()
			await expect(other).toHaveURL(/\/reset-password$/)
			await other.getByLabel('New password', { exact: true }).fill('from-phone-pass-3')
			await other.getByLabel('Repeat the new password').fill('from-phone-pass-3')
			await other.getByRole('button', { name: 'Save new password' }).click()
			await other.waitForURL((url) => url.pathname !== '/reset-password')
			await expect(other.getByText('Your password has been changed.')).toBeVisible()
		} finally {
			await phone.close()
		}
		await page.goto('/signin')
		await signIn(page, email, PASSWORD)
		await expect(page.getByText('Invalid email or password.')).toBeVisible()
		await signIn(page, email, 'from-phone-pass-3')
		await page.waitForURL((url) => url.pathname !== '/signin')
	})

	test('the 6-digit code from the mail resets the password on the reset page @no-js', async ({
		page,
	}) => {
		const { email, mail } = await askForReset(page)
		expect(mail.code).toMatch(/^\d{6}$/)
		await expect(page.getByLabel('Email', { exact: true })).toHaveValue(email)
		const wrong = mail.code === '000000' ? '111111' : '000000'
		await page.getByLabel('Code from the email').fill(wrong)
		await page.getByLabel('New password', { exact: true }).fill('by-code-pass-4')
		await page.getByLabel('Repeat the new password').fill('by-code-pass-4')
		await page.getByRole('button', { name: 'Save new password' }).click()
		await expect(
			page.getByText('This code is wrong or has expired. Ask for a new one.'),
		).toBeVisible()

		await page.getByLabel('Code from the email').fill(mail.code!)
		await page.getByLabel('New password', { exact: true }).fill('by-code-pass-4')
		await page.getByLabel('Repeat the new password').fill('by-code-pass-4')
		await page.getByRole('button', { name: 'Save new password' }).click()
		await page.waitForURL((url) => url.pathname !== '/reset-password')
		await expect(page.getByText('Your password has been changed.')).toBeVisible()
		await signOut(page)
		await signIn(page, email, 'by-code-pass-4')
		await page.waitForURL((url) => url.pathname !== '/signin')
	})
})

test.describe('lifetime deals and plan changes', () => {
	test.describe.configure({ timeout: 180_000 })

	async function onStarterHalfway(page: Page, options: { ltd?: boolean } = {}) {
		const { email } = await subscribedAccount(page)
		await withDatabase(async (db) => {
			await db.query(
				`update subscriptions set billing_date = now() - interval '15 days',
					expire_date = now() + interval '15 days'
				where user_id = (select id from auth.users where email = $1)`,
				[email],
			)
			if (options.ltd)
				await db.query(
					`update profiles set is_ltd = true where user_id = (select id from auth.users where email = $1)`,
					[email],
				)
		})
		return email
	}

	test('a lifetime deal with a paid plan still running: the owner sees it and cancels it @no-js', async ({
		page,
	}) => {
		await onStarterHalfway(page, { ltd: true })
		await page.goto('/subscription')
		await expect(page.getByText('Lifetime deal', { exact: true })).toBeVisible()
		await expect(page.getByText(/Your Monthly Starter subscription is still active/)).toBeVisible()
		await page.locator('summary', { hasText: 'Cancel the subscription' }).click()
		await page.getByRole('button', { name: 'Cancel at period end' }).click()
		await expect(page.getByRole('button', { name: 'Resume subscription' })).toBeVisible({
			timeout: 20_000,
		})
		await expect(page.getByText('Ends at period end')).toBeVisible()
	})

	test('a plan switch shows what is charged now and from when, then asks to confirm @no-js', async ({
		page,
	}) => {
		await onStarterHalfway(page)
		await page.goto('/subscription')
		const renews = (await page.getByTestId('expire-date').textContent())!.trim()
		await page.getByRole('button', { name: 'Switch to Monthly Unlimited' }).click()
		await expect(page).toHaveURL(/\/subscription\?change=2$/)
		await expect(
			page.getByRole('heading', { name: 'Switch from Monthly Starter to Monthly Unlimited' }),
		).toBeVisible()
		// half of $49.00 back, half of $149.00 for the rest of the month: $50.00 now (give or take a cent)
		await expect(page.getByTestId('switch-credit')).toHaveText(/^−\$24\.(4\d|50)$/)
		await expect(page.getByTestId('switch-charge')).toHaveText(/^\$74\.(4\d|50)$/)
		await expect(page.getByTestId('switch-due')).toHaveText(/^\$(49|50)\.\d\d$/)
		const due = (await page.getByTestId('switch-due').textContent())!.trim()
		await expect(page.getByTestId('switch-summary')).toHaveText(
			`Monthly Unlimited starts today. From ${renews} you pay $149.00 per month.`,
		)
		// nothing changed yet
		await page.goto('/subscription')
		await expect(page.getByTestId('current-plan')).toHaveText('Monthly Starter')
		await page.goto('/subscription?change=2')
		await page.getByRole('button', { name: 'Confirm the switch' }).click()
		await expect(page).toHaveURL(/\/test-payment\/[0-9a-f-]{36}$/)
		await page.getByRole('button', { name: `Pay ${due} (test)` }).click()
		await page.waitForURL((url) => !url.pathname.startsWith('/test-payment'))
		await page.goto('/subscription')
		await expect(page.getByTestId('current-plan')).toHaveText('Monthly Unlimited')
		// the renewal date stays where it was
		await expect(page.getByTestId('expire-date')).toHaveText(renews)
	})
})
