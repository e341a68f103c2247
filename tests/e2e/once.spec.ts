import { expect, test, type Locator, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { withDatabase } from './support.ts'

// A form sent again (the same fields and the same hidden key, as a double click, a retry or
// going back and pressing again sends it) does one thing and answers as the first time did.
test.describe.configure({ timeout: 90_000 })

/** The fields the browser would send for `form` when `submit` is pressed. */
async function fieldsOf(form: Locator, submit?: { name: string; value: string }) {
	const fields: Record<string, string> = {}
	for (const input of await form.locator('input[name], select[name], textarea[name]').all()) {
		const name = (await input.getAttribute('name'))!
		const type = await input.getAttribute('type')
		if (type === 'file' || type === 'submit') continue
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
	await page.goto('/create-leads', { waitUntil: 'networkidle' })
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
	await page.goto('/file-list', { waitUntil: 'networkidle' })
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
	await page.goto('/purchase', { waitUntil: 'networkidle' })
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
