import { expect as baseExpect, test, type Page, type TestInfo } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, pageSettled } from './support.ts'
import { xlsxOf } from '../support/xlsx.ts'

// Fixing what an import brought in (decision 0081): a lead edited or deleted from its list,
// kept columns mapped to lead fields afterwards, and a workbook imported like a CSV.
test.describe.configure({ timeout: 120_000 })
const expect = baseExpect.configure({ timeout: 15_000 })

async function upload(page: Page, name: string, content: Buffer, mimeType = 'text/csv') {
	await page.goto('/file-list')
	await pageSettled(page)
	await page.getByLabel(/CSV file/).setInputFiles({ name, mimeType, buffer: content })
	await page.getByRole('button', { name: 'Upload' }).click()
}

/** Imports as mapped by the page and waits for the list to be done. */
async function importAndWait(page: Page, testInfo: TestInfo, rows: number) {
	await page.getByRole('button', { name: new RegExp(`^Import ${rows} rows`) }).click()
	await expect(page).toHaveURL(/\/lists\/[0-9a-f-]{36}$/)
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByText('Done', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 30_000 })
}

test('edit and delete a lead from its list; French headers map themselves @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page)
	await upload(
		page,
		'salon.csv',
		Buffer.from(
			'Prénom,NOM,E-Mail,Société,Site web\n' +
				'Ada,Lovelace, ADA@Example.com ,Analytical,https://www.Analytical.co.uk/about\n' +
				'Grace,Hopper,grace@navy.mil,US Navy,navy.mil\n' +
				'Linus,Torvalds,linus@kernel.org,Linux,kernel.org\n',
		),
	)
	await expect(page.getByLabel('Email (required)')).toHaveValue('2')
	await expect(page.getByLabel('First name')).toHaveValue('0')
	await expect(page.getByLabel('Last name')).toHaveValue('1')
	await expect(page.getByLabel('Company', { exact: true })).toHaveValue('3')
	await importAndWait(page, testInfo, 3)
	await expect(page.getByTestId('lead-count')).toHaveText('3 leads')
	const rows = page.getByTestId('lead-row')
	// lower-cased and normalised at import
	await expect(rows.filter({ hasText: 'ada@example.com' })).toContainText('analytical.co.uk')

	// edit: a taken address is refused at its field, then the change is saved
	await page.getByRole('link', { name: 'Edit ada@example.com' }).click()
	await expect(page.getByRole('heading', { name: 'ada@example.com' })).toBeVisible()
	await pageSettled(page)
	await page.getByLabel('Email (required)').fill('grace@navy.mil')
	await page.getByLabel('First name').fill('Augusta Ada')
	await page.getByRole('button', { name: 'Save lead' }).click()
	await expect(page.getByText('This list already has a lead with this email address')).toBeVisible()
	await page.getByLabel('Email (required)').fill('Countess@Example.com')
	await page.getByRole('button', { name: 'Save lead' }).click()
	await expect(page.getByText('Lead countess@example.com saved')).toBeVisible()
	await expect(rows.filter({ hasText: 'countess@example.com' })).toContainText('Augusta Ada')

	// delete, confirmed in the dialog (a <details> without JavaScript)
	await page.getByRole('link', { name: 'Edit linus@kernel.org' }).click()
	await pageSettled(page)
	await page
		.getByTestId('delete-lead')
		.getByText('Delete linus@kernel.org', { exact: true })
		.click()
	await page.getByRole('button', { name: 'Delete lead' }).click()
	await expect(page.getByText('Lead linus@kernel.org deleted')).toBeVisible()
	await expect(page.getByTestId('lead-count')).toHaveText('2 leads')
	await expect(rows).toHaveCount(2)
	await expect(rows.filter({ hasText: 'linus@kernel.org' })).toHaveCount(0)

	// a lead id of no list of this account
	const response = await page.goto(
		`${new URL(page.url()).pathname}/leads/00000000-0000-4000-8000-000000000000`,
	)
	expect(response?.status()).toBe(404)
})

test('import an .xlsx workbook, then map a kept column into a lead field @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page)
	const workbook = xlsxOf([
		{
			name: 'Leads',
			rows: {
				1: ['Vorname', 'E-Mail', 'Firma', 'Position im Team'],
				2: ['Ada', 'ada@example.com', 'Analytical', 'Countess'],
				3: ['Grace', 'not an address', 'Navy', 'Admiral'],
				4: ['Linus', 'linus@kernel.org', 'Linux', 'Maintainer'],
			},
		},
	])
	await upload(
		page,
		'messe.xlsx',
		workbook,
		'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	)
	await expect(page.getByRole('heading', { name: 'Map the columns of messe.xlsx' })).toBeVisible()
	await expect(page.getByLabel('First name')).toHaveValue('0')
	await expect(page.getByLabel('Email (required)')).toHaveValue('1')
	// "Position im Team" is not mapped, so the title stays empty and the column is kept
	await page.getByLabel('Job title').selectOption('')
	await page.getByLabel('List name').fill('Messe')
	await importAndWait(page, testInfo, 3)
	await expect(page.getByTestId('lead-count')).toHaveText('2 leads')
	await expect(page.getByText('1 invalid and 0 duplicate rows were skipped')).toBeVisible()
	await page.getByRole('link', { name: 'Import report' }).click()
	// the report's line is the sheet's row number
	const skipped = page.getByTestId('import-error')
	await expect(skipped).toHaveCount(1)
	await expect(skipped.locator('td').first()).toHaveText('3')
	await expect(skipped).toContainText('not an address')

	await page.goBack()
	await page.getByRole('link', { name: 'Map columns' }).click()
	await expect(page.getByTestId('kept-column')).toHaveText([/Position im Team/])
	await pageSettled(page)
	const row = page.getByTestId('kept-column').filter({ hasText: 'Position im Team' })
	if (jsEnabled(testInfo)) {
		await row.getByRole('combobox').click()
		await page.getByRole('option', { name: 'Job title' }).click()
	} else {
		await row.getByRole('combobox').selectOption('title')
	}
	await row.getByRole('button', { name: /Move/ }).click()
	await expect(page.getByText('“Position im Team” moved into Job title for 2 leads')).toBeVisible()
	const rows = page.getByTestId('lead-row')
	await expect(rows.filter({ hasText: 'ada@example.com' })).toContainText('Countess')
	await expect(page.getByRole('columnheader', { name: 'Position im Team' })).toHaveCount(0)

	// the next workbook with the same headers maps itself as this one was mapped
	await upload(
		page,
		'messe-2.xlsx',
		workbook,
		'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	)
	await expect(page.getByText(/Mapped from your saved mapping/)).toBeVisible()
	await expect(page.getByLabel('Job title')).toHaveValue('')
})
