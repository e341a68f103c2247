import { expect as baseExpect, test, type Locator, type Page } from '@playwright/test'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { subscribedAccount } from './leads-support.ts'
import { pageSettled, withDatabase } from './support.ts'

// A form sent again (the same fields and the same hidden key, as a double click, a retry or
// going back and pressing again sends it) does one thing and answers as the first time did.
// Sign-up, the form and its redirect take a while on a busy machine.
test.describe.configure({ timeout: 120_000 })
const expect = baseExpect.configure({ timeout: 30_000 })

let eb: FakeEmailBison
test.beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 2 })
})
test.afterAll(async () => {
	await eb.close()
})

/** The fields the browser would send for `form` when `submit` is pressed. */
async function fieldsOf(form: Locator, submit?: { name: string; value: string }) {
	// after a client-side navigation the address changes before the new page renders
	await expect(form).toBeVisible()
	const fields: Record<string, string> = {}
	for (const input of await form.locator('input[name], select[name], textarea[name]').all()) {
		const name = (await input.getAttribute('name'))!
		const type = await input.getAttribute('type')
		if (type === 'file' || type === 'submit' || (await input.isDisabled())) continue
		if ((type === 'checkbox' || type === 'radio') && !(await input.isChecked())) continue
		fields[name] = await input.inputValue()
	}
	if (submit) fields[submit.name] = submit.value
	return fields
}

/** Posts the same fields again; returns where the server sends the browser. */
async function sendAgain(page: Page, path: string, fields: Record<string, string>) {
	const response = await page.request.post(path, { form: fields, maxRedirects: 0 })
	expect(response.status()).toBe(302)
	const location = new URL(response.headers()['location']!, page.url())
	return location.pathname + location.search + location.hash
}

const here = (page: Page) => {
	const url = new URL(page.url())
	return url.pathname + url.search + url.hash
}

async function countOf(sql: string, email: string) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ n: number }>(sql, [email])
		return Number(rows[0]!.n)
	})
}

test('create leads sent again: one list, one credit hold', async ({ page }) => {
	const { email } = await subscribedAccount(page, { credits: 1000 })
	await page.goto('/create-leads')
	await pageSettled(page)
	await page
		.getByLabel('Apollo people search')
		.fill('https://app.apollo.io/#/people?personTitles[]=cfo&qKeywords=once')
	await page.getByLabel('List name').fill('Once CFOs')
	await page.getByLabel('How many leads').fill('30')
	await page.getByLabel('Credits').check()
	const form = page.locator('form').filter({ has: page.getByLabel('List name') })
	const fields = await fieldsOf(form, { name: 'intent', value: 'create' })
	expect(fields.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
	await page.getByRole('button', { name: 'Create lead list' }).click()
	await expect(page).toHaveURL(/\/scrape/)
	const first = here(page)

	expect(await sendAgain(page, '/create-leads', fields)).toBe(first)
	expect(await sendAgain(page, '/create-leads', fields)).toBe(first)
	await page.reload()
	await expect(page.getByTestId('scrape-row').filter({ hasText: 'Once CFOs' })).toHaveCount(1)
	expect(
		await countOf(
			`select count(*) as n from credit_reservations r join auth.users u on u.id = r.user_id
			 where u.email = $1`,
			email,
		),
	).toBe(1)
})

test('a CSV import confirmed again: one list', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	await page.goto('/file-list')
	await pageSettled(page)
	await page.getByLabel('CSV file').setInputFiles({
		name: 'once.csv',
		mimeType: 'text/csv',
		buffer: Buffer.from('email,first name\nada@example.com,Ada\ngrace@example.com,Grace\n'),
	})
	await page.getByRole('button', { name: 'Upload' }).click()
	await expect(page.getByRole('heading', { name: 'Map the columns of once.csv' })).toBeVisible()
	const form = page.locator('form').filter({ has: page.getByLabel('List name') })
	const fields = await fieldsOf(form)
	await page.getByRole('button', { name: /^Import 2 rows/ }).click()
	await expect(page).toHaveURL(/\/lists\//)
	const first = here(page)

	expect(await sendAgain(page, '/file-list', fields)).toBe(first)
	expect(
		await countOf(
			`select count(*) as n from processing_list l join auth.users u on u.id = l.user_id
			 where u.email = $1`,
			email,
		),
	).toBe(1)
})

test('a credit pack bought again: one checkout', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	await page.goto('/purchase')
	await pageSettled(page)
	const pack = page.getByTestId('pack-1000')
	const form = page.locator('form').filter({ has: pack })
	const button = pack.getByRole('button')
	const fields = await fieldsOf(form, {
		name: (await button.getAttribute('name'))!,
		value: (await button.getAttribute('value'))!,
	})
	await button.click()
	await expect(page).toHaveURL(/\/test-payment\//)
	const first = here(page)

	expect(await sendAgain(page, '/purchase', fields)).toBe(first)
	expect(
		await countOf(
			`select count(*) as n from checkout_sessions s join auth.users u on u.id = s.user_id
			 where u.email = $1`,
			email,
		),
	).toBe(1)
})

test('create companies sent again: one list', async ({ page }) => {
	const { email } = await subscribedAccount(page, { credits: 100 })
	await page.goto('/create-companies')
	await pageSettled(page)
	await page.getByLabel('Company domains').fill('acme.com\nbeta.io')
	await page.getByLabel('List name').fill('Once companies')
	await page.getByLabel('Credits').check()
	const form = page.locator('form').filter({ has: page.getByLabel('List name') })
	const fields = await fieldsOf(form)
	await page.getByRole('button', { name: 'Create company list' }).click()
	await expect(page).toHaveURL(/\/scrape/)
	const first = here(page)

	expect(await sendAgain(page, '/create-companies', fields)).toBe(first)
	expect(
		await countOf(
			`select count(*) as n from company_scraping_list l join auth.users u on u.id = l.user_id
			 where u.email = $1`,
			email,
		),
	).toBe(1)
})

test('a plan chosen again: one checkout', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	await page.goto('/subscription')
	await pageSettled(page)
	// a switch from an active plan is confirmed on a page that shows its proration first
	await page.getByRole('button', { name: 'Switch to Monthly Unlimited' }).click()
	await expect(page).toHaveURL(/\/subscription\?change=/)
	const button = page.getByRole('button', { name: 'Confirm the switch' })
	const form = page.locator('form').filter({ has: button })
	const fields = await fieldsOf(form)
	await button.click()
	await expect(page).toHaveURL(/\/test-payment\//)
	const first = here(page)

	expect(await sendAgain(page, '/subscription', fields)).toBe(first)
	expect(
		await countOf(
			`select count(*) as n from checkout_sessions s join auth.users u on u.id = s.user_id
			 where u.email = $1`,
			email,
		),
	).toBe(1)
})

test('an EmailBison upload sent again: one campaign, one upload', async ({ page }, testInfo) => {
	const { email } = await subscribedAccount(page)
	await page.goto('/settings')
	await page.getByLabel('EmailBison URL').fill(`${eb.url}/api`)
	await page.getByLabel('Super-admin API key').fill(eb.superAdminKey)
	await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
	await expect(page.getByText('EmailBison settings saved')).toBeVisible()
	const listId = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into processing_list (user_id, name, source_type, status)
			 select id, 'Send once', 'upload', 2 from auth.users where email = $1 returning id`,
			[email],
		)
		await client.query(
			`insert into leads (list_id, user_id, email, first_name, last_name)
			 select $1, l.user_id, 'once' || n || '@acme.com', 'F' || n, 'L' || n
			 from processing_list l, generate_series(1, 3) n where l.id = $1`,
			[rows[0]!.id],
		)
		return rows[0]!.id
	})
	await page.goto(`/lists/${listId}/upload`)
	await page.getByLabel('Workspace').selectOption({ label: 'Workspace 2' })
	await page.getByRole('button', { name: 'Continue' }).click()
	await page.getByLabel('Campaign', { exact: true }).selectOption('new')
	const campaign = `Once ${testInfo.project.name} ${Date.now()}`
	await page.getByLabel('New campaign name (when creating one)').fill(campaign)
	const form = page.locator('form').filter({ has: page.getByLabel('Campaign', { exact: true }) })
	const fields = await fieldsOf(form)
	await page.getByRole('button', { name: 'Upload to EmailBison' }).click()
	await expect(page).toHaveURL(/\/uploads\?list=/)
	const first = here(page)

	expect(await sendAgain(page, `/lists/${listId}/upload`, fields)).toBe(first)
	expect([...eb.campaigns.values()].filter((c) => c.name === campaign)).toHaveLength(1)
	expect(
		await countOf(
			`select count(*) as n from emailbison_upload e join auth.users u on u.id = e.user_id
			 where u.email = $1`,
			email,
		),
	).toBe(1)
})
