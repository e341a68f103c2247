import { expect, test } from '@playwright/test'
import { seedCompanyList, seedEnrichment } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled } from './support.ts'

test('a company list is enriched from its page and shows the new column @no-js', async ({
	page,
}, testInfo) => {
	test.setTimeout(90_000) // a shared, busy machine: the worker may take a while to pick the job up
	const { email } = await subscribedAccount(page, { credits: 100 })
	await seedEnrichment(email, {
		name: 'Pitch',
		prompt: 'Pitch {{name}} at {{domain}}',
		outputColumn: 'pitch',
	})
	const listId = await seedCompanyList(email, 'Targets', 3)

	await page.goto(`/company-lists/${listId}`)
	await page.getByRole('link', { name: 'Enrich', exact: true }).click()
	await expect(page).toHaveTitle('Enrich company list | Leadsmith')
	await page.getByLabel('Enrichment or chain').selectOption({ label: 'Pitch' })
	await page.getByLabel(/^Credits/).check()
	await page.getByRole('button', { name: 'Estimate the cost' }).click()
	await expect(page.getByTestId('estimate')).toContainText('3 companies')
	await page.getByRole('button', { name: 'Run now' }).click()
	await expect(page.getByText('“Pitch” is running on 3 companies')).toBeVisible()

	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByTestId('runs').getByText('Done', { exact: true })).toBeVisible({
			timeout: 1000,
		})
	}).toPass({ timeout: 45_000 })
	await expect(page.getByTestId('runs')).toContainText('3 of 3 done')
	await expect(page.getByTestId('results')).toContainText(
		'AI(gpt-4o-mini): Pitch Firm 2 at firm2.example',
	)

	// the answers are a column of the companies, on their page
	await page.getByRole('link', { name: 'Back to the list' }).click()
	await expect(page.getByRole('columnheader', { name: 'pitch' })).toBeVisible()
	await expect(page.getByTestId('company-row').first()).toContainText(
		'AI(gpt-4o-mini): Pitch Firm 1 at firm1.example',
	)
})

test('a new enrichment is previewed on a company list, from its enrich page @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedCompanyList(email, 'Prospects', 6)

	await page.goto(`/company-lists/${listId}/enrich`)
	await page.getByRole('link', { name: 'Create an AI enrichment' }).click()
	await expect(page).toHaveTitle('Enrichments | Leadsmith')
	// the list the link came from is the one to preview on
	await expect(page.getByLabel('Preview on 5 rows of')).toHaveValue(listId)
	const form = page.locator('form#enrichment')
	await form.getByLabel('Name').fill('Angle')
	await form.getByLabel('Prompt').fill('Find an angle for {{name}} ({{domain}})')
	await form.getByLabel('Output column').fill('angle')
	await form.getByRole('button', { name: 'Preview on 5 rows' }).click()
	const preview = page.getByTestId('preview')
	await expect(preview.getByRole('columnheader', { name: 'Company' })).toBeVisible()
	await expect(preview.locator('tbody tr')).toHaveCount(5)
	await expect(preview).toContainText('Firm 1 (firm1.example)')
	await expect(preview).toContainText('AI(gpt-4o-mini): Find an angle for Firm 1 (firm1.example)')
})

test('an account with only a company list saves its first enrichment from the guided path @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedCompanyList(email, 'Only companies', 3)

	await page.goto(`/company-lists/${listId}/enrich`)
	await page.getByRole('link', { name: 'Create an AI enrichment' }).click()
	await expect(page.getByLabel('Preview on 5 rows of')).toHaveValue(listId)
	const form = page.locator('form#enrichment')
	await form.getByLabel('Name').fill('Opener')
	await form.getByLabel('Prompt').fill('Write an opener for {{name}} at {{domain}}')
	await form.getByLabel('Output column').fill('opener')
	await form.getByRole('button', { name: 'Save enrichment' }).click()
	await expect(page.getByText('Enrichment “Opener” saved')).toBeVisible()
	await expect(page.getByTestId('enrichment-list')).toContainText('Opener')

	// and the company list's enrich page now offers it
	await page.goto(`/company-lists/${listId}/enrich`)
	await expect(page.getByLabel('Enrichment or chain')).toContainText('Opener')
})
