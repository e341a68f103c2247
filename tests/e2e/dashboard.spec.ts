// Issue 16 points 5 and 7: the dashboard shows the work (jobs with live progress, recent
// lists, credits spent, quick actions), and a company list opens as its own page.
import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, withDatabase } from './support.ts'

// a busy machine: each test signs up and walks several pages
test.describe.configure({ timeout: 120_000 })

test('the dashboard shows a running job live, the lists and the credits spent @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page, { credits: 100 })
	await page.goto('/create-companies')
	await page.getByLabel('Company domains').fill('acme.com\nhttps://www.beta.io')
	await page.getByLabel('List name').fill('Dashboard targets')
	await page.getByLabel('Credits').check()
	await page.getByRole('button', { name: 'Create company list' }).click()
	await expect(page).toHaveURL(/\/scrape/)
	// a lead search still running at 10%
	const listId = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into processing_list (user_id, name, source_type, status, progress)
			 select id, 'Running search', 'apollo', 1, 10 from auth.users where email = $1
			 returning id`,
			[email],
		)
		return rows[0]!.id
	})

	await page.goto('/')
	const running = page.getByTestId('dashboard-job').filter({ hasText: 'Running search' })
	await expect(running.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '10')
	await withDatabase((client) =>
		client.query('update processing_list set progress = 60 where id = $1', [listId]),
	)
	// with JavaScript the page refreshes itself; without it, its Refresh link does
	if (!jsEnabled(testInfo)) await page.getByRole('link', { name: 'Refresh' }).click()
	await expect(running.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '60')

	const companies = page.getByTestId('dashboard-job').filter({ hasText: 'Dashboard targets' })
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(companies.getByText('Done', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 20_000 })
	await expect(page.getByRole('img', { name: /Credits spent a day/ })).toBeVisible()
	await expect(page.getByTestId('spent-summary')).toHaveText(
		/^2 credits spent in the last 30 days; the most on /,
	)
	await expect(page.getByRole('navigation', { name: 'Quick actions' })).toContainText(
		'Create leads',
	)
	// axe runs as a script in the page; once, at a phone's width
	if (jsEnabled(testInfo)) {
		await page.setViewportSize({ width: 390, height: 900 })
		await expectNoSeriousA11yViolations(page)
	}
	await page.getByTestId('dashboard-list').getByRole('link', { name: 'Dashboard targets' }).click()
	await expect(page).toHaveURL(/\/company-lists\/[0-9a-f-]{36}$/)
	await expect(page.getByTestId('company-row')).toHaveCount(2)
})

test('a company list opens from /scrape: paged, searched, downloaded; not another account’s @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const { mine, theirs } = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into company_scraping_list (user_id, name, source_type, status, found, progress)
			 select id, 'Big targets', 'domains', 2, 60, 100 from auth.users where email = $1
			 returning id`,
			[email],
		)
		const mine = rows[0]!.id
		await client.query(
			`insert into companies (list_id, user_id, name, domain)
			 select $1, l.user_id, 'Firm ' || lpad(i::text, 2, '0'), 'firm' || lpad(i::text, 2, '0') || '.example'
			 from company_scraping_list l, generate_series(1, 60) i where l.id = $1`,
			[mine],
		)
		const other = await client.query<{ id: string }>(
			`insert into company_scraping_list (user_id, name, source_type, status)
			 select id, 'Not yours', 'domains', 2 from auth.users where email <> $1 limit 1
			 returning id`,
			[email],
		)
		return { mine, theirs: other.rows[0]!.id }
	})

	await page.goto('/scrape')
	await page.getByRole('link', { name: 'Big targets' }).click()
	await expect(page).toHaveURL(`/company-lists/${mine}`)
	await expect(page.getByRole('heading', { name: 'Big targets', level: 1 })).toBeVisible()
	await expect(page.getByTestId('page-status')).toHaveText('1–50 of 60')
	await expect(page.getByTestId('company-row').first()).toContainText('firm01.example')
	await page.getByRole('link', { name: 'Next' }).click()
	await expect(page.getByTestId('page-status')).toHaveText('51–60 of 60')
	await expect(page.getByTestId('company-row').first()).toContainText('Firm 51')

	await page.getByLabel('Search').fill('firm4')
	await page.getByRole('button', { name: 'Search' }).click()
	await expect(page.getByTestId('company-row')).toHaveCount(10)
	await expect(page.getByTestId('company-row').first()).toContainText('Firm 40')
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)

	const download = await page.request.get(
		await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href').then(String),
	)
	expect(download.headers()['content-type']).toContain('text/csv')
	const csv = await download.text()
	expect(csv.split('\n').filter(Boolean)).toHaveLength(61)
	expect(csv).toContain('Firm 60,firm60.example')

	const response = await page.goto(`/company-lists/${theirs}`)
	expect(response?.status()).toBe(404)
	await expect(page.getByText('Not yours')).toHaveCount(0)
})
