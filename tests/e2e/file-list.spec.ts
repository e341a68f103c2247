import http from 'node:http'
import { expect as baseExpect, test, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, pageSettled } from './support.ts'

// Sign-up, upload, the import in the worker and the checks take a while on a busy machine.
test.describe.configure({ timeout: 90_000 })
const expect = baseExpect.configure({ timeout: 15_000 })

const CSV = [
	'\uFEFFE-mail Address,First Name,Surname,Company,City,Notes',
	'ada@example.com,Ada,Lovelace,Analytical Engines,London,"likes ""maths""\nand poetry"',
	'grace@example.com,Grace,Hopper,US Navy,Arlington,',
	'not-an-email,Bob,Nobody,Acme,Paris,',
	'ADA@example.com,Ada,Again,Analytical Engines,London,',
	'=cmd@example.com,=SUM(A1),+1,-2,@x,',
].join('\r\n')

async function upload(page: Page, name: string, content: string | Buffer) {
	// with JavaScript, a file chosen before hydration would be dropped by the re-render
	await page.goto('/file-list')
	await pageSettled(page)
	await page.getByLabel('CSV file').setInputFiles({
		name,
		mimeType: 'text/csv',
		buffer: Buffer.isBuffer(content) ? content : Buffer.from(content),
	})
	await page.getByRole('button', { name: 'Upload' }).click()
}

test('upload a CSV, map its columns, and see the list with its rows @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page)
	await page.goto('/file-list')
	await expect(page).toHaveTitle('File list | Leadsmith')
	await upload(page, 'conference leads.csv', CSV)

	// the mapping step: the preview and the columns guessed from the headers
	await expect(
		page.getByRole('heading', { name: 'Map the columns of conference leads.csv' }),
	).toBeVisible()
	await expect(page.getByTestId('csv-preview')).toContainText('grace@example.com')
	await expect(page.getByLabel('Email (required)')).toHaveValue('0')
	await expect(page.getByLabel('Last name')).toHaveValue('2')
	await expect(page.getByLabel('Location')).toHaveValue('4')
	await expect(page.getByLabel('Job title')).toHaveValue('')
	await expect(page.getByLabel('List name')).toHaveValue('conference leads')
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)

	// a mapping without email is refused at the field
	await page.getByLabel('Email (required)').selectOption('')
	await page.getByRole('button', { name: /^Import 5 rows/ }).click()
	await expect(page.getByText('Choose the column that holds the email addresses')).toBeVisible()
	await expect(page.getByLabel('Email (required)')).toHaveAttribute('aria-invalid', 'true')

	await page.getByLabel('Email (required)').selectOption('0')
	await page.getByLabel('Job title').selectOption('3')
	await page.getByLabel('Company', { exact: true }).selectOption('')
	await page.getByLabel('List name').fill('Conference 2026')
	await page.getByRole('button', { name: /^Import 5 rows/ }).click()

	// the list page: the import runs in the worker, then the rows are there
	await expect(page).toHaveURL(/\/lists\/[0-9a-f-]{36}$/)
	await expect(page.getByRole('heading', { name: 'Conference 2026' })).toBeVisible()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByText('Done', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 20_000 })
	await expect(page.getByTestId('lead-count')).toHaveText('3 leads')
	const rows = page.getByTestId('lead-row')
	await expect(rows).toHaveCount(3)
	await expect(rows.first()).toContainText('ada@example.com')
	await expect(rows.first()).toContainText('Analytical Engines') // mapped to title
	await expect(page.getByRole('columnheader', { name: 'Notes' })).toBeVisible()
	await expect(page.getByText('1 invalid and 1 duplicate rows were skipped')).toBeVisible()

	// sorted and filtered on the server, the state in the URL
	await page.getByRole('link', { name: 'Last name' }).first().click()
	await expect(page).toHaveURL(/sort=last_name/)
	// '+1' sorts before 'hopper' and 'lovelace'
	await expect(rows.nth(1)).toContainText('grace@example.com')
	await page.getByLabel('Search').fill('gra')
	await page.getByRole('button', { name: 'Search' }).click()
	await expect(page).toHaveURL(/q=gra/)
	await expect(rows).toHaveCount(1)

	// the import report, by line (the quoted cell spans lines 2 and 3)
	await page.getByRole('link', { name: 'Import report' }).first().click()
	const errors = page.getByTestId('import-error')
	await expect(errors).toHaveCount(2)
	await expect(errors.nth(0)).toContainText('5')
	await expect(errors.nth(0)).toContainText('Not a valid email address')
	await expect(errors.nth(1)).toContainText('6')
	await expect(errors.nth(1)).toContainText('Duplicate')

	// the download: formula cells escaped, extra columns kept
	const listUrl = await page.getByRole('link', { name: 'Open the list' }).getAttribute('href')
	const csv = await page.request.get(`${listUrl}/download`)
	expect(csv.status()).toBe(200)
	expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8')
	expect(csv.headers()['content-disposition']).toContain(
		'attachment; filename="Conference-2026.csv"',
	)
	const body = await csv.text()
	expect(body).toContain("'=cmd@example.com,'=SUM(A1),'+1")
	expect(body).toContain('"likes ""maths""\nand poetry"')

	// the file is listed on /file-list
	await page.goto('/file-list')
	const file = page.getByTestId('file-row').filter({ hasText: 'Conference 2026' })
	await expect(file).toContainText('conference leads.csv')
	await expect(file.getByTestId('imported')).toContainText('3')
	await expect(file).toContainText('2 skipped')
})

test('a CSV that is not UTF-8, or has no email column, is refused at the field @no-js', async ({
	page,
}) => {
	await subscribedAccount(page)
	await upload(
		page,
		'latin1.csv',
		Buffer.concat([
			Buffer.from('email,name\n'),
			Buffer.from('jos\xe9@example.com,Jos\xe9\n', 'latin1'),
		]),
	)
	await expect(
		page.getByText(/This file is not UTF-8 text \(the first problem is on line 2\)/),
	).toBeVisible()
	await expect(page.getByLabel('CSV file')).toHaveAttribute('aria-invalid', 'true')

	await upload(page, 'names.csv', 'name,company\nAda,Analytical\n')
	await expect(page.getByText(/No email column found/)).toBeVisible()
	// nothing was created
	await page.goto('/file-list')
	await expect(page.getByTestId('file-row')).toHaveCount(0)
})

test('an upload over the limit is refused with 413 before it is read', async ({ baseURL }) => {
	// Content-Length says 300 MB (over UPLOAD_LIMIT_BYTES); the answer comes before any body.
	const url = new URL('/file-list', baseURL)
	const status = await new Promise<number>((resolve, reject) => {
		const request = http.request(url, {
			method: 'POST',
			headers: {
				'Content-Type': 'multipart/form-data; boundary=x',
				'Content-Length': String(300 * 1024 * 1024),
			},
		})
		request.on('response', (response) => {
			response.resume()
			resolve(response.statusCode ?? 0)
			request.destroy()
		})
		request.on('error', reject)
		request.write('--x\r\n')
	})
	expect(status).toBe(413)
})

test("another account's list is not found", async ({ page, browser }) => {
	await subscribedAccount(page)
	await upload(page, 'mine.csv', 'email\nmine@example.com\n')
	await page.getByRole('button', { name: /^Import 1 row/ }).click()
	await expect(page).toHaveURL(/\/lists\/[0-9a-f-]{36}$/)
	const listPath = new URL(page.url()).pathname

	const other = await browser.newPage()
	await subscribedAccount(other)
	for (const path of [listPath, `${listPath}/import-report`]) {
		await other.goto(path)
		await expect(other.getByRole('heading', { name: "This Page Doesn't Exist!" })).toBeVisible()
	}
	const download = await other.request.get(`${listPath}/download`)
	expect(download.status()).toBe(404)
	await other.close()
})
