import { expect, test, type Page, type TestInfo } from '@playwright/test'
import { seedEnrichment, seedLeadList, setTitles } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled } from './support.ts'

/** Waits for the newest run to end (reloading without JavaScript). */
async function runEnds(page: Page, testInfo: TestInfo) {
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByTestId('runs').getByText('Done', { exact: true })).toBeVisible({
			timeout: 1000,
		})
	}).toPass({ timeout: 45_000 })
}

test('enrich only the leads a search and a condition take @no-js', async ({ page }, testInfo) => {
	test.setTimeout(90_000)
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Prospects', 12)
	await setTitles(listId, { 1: 'CEO', 10: 'ceo ' }, 'Engineer')
	await seedEnrichment(email, {
		name: 'Opener',
		prompt: 'Opener for {{first_name}}',
		outputColumn: 'opener',
	})

	// the list page's search: lead1, lead10 and lead11
	await page.goto(`/lists/${listId}`)
	await page.getByLabel('Search').fill('lead1')
	await page.getByRole('button', { name: 'Search' }).click()
	await expect(page.getByTestId('lead-row')).toHaveCount(3)
	await page.getByRole('link', { name: 'Enrich these 3 leads' }).click()

	await expect(page).toHaveTitle('Enrich list | Leadsmith')
	const form = page.locator('form#run')
	await expect(form.getByLabel('Search')).toHaveValue('lead1')
	await form.getByLabel('Enrichment or chain').selectOption({ label: 'Opener' })
	await form.getByLabel(/^Credits/).check()
	const condition = form.getByRole('group', { name: 'Condition 1' })
	await condition.getByLabel('Column').selectOption('title')
	await condition.getByLabel('Comparison').selectOption({ label: 'equals' })
	await form.getByRole('button', { name: 'Estimate the cost' }).click()
	await expect(condition.getByText('Enter a value to compare with.')).toBeVisible()

	// a filter that takes no lead says so, and starts nothing
	await condition.getByLabel('Value').fill('founder')
	await form.getByRole('button', { name: 'Estimate the cost' }).click()
	await expect(form.getByRole('alert')).toContainText(
		'No lead of this list matches these filters: nothing to run.',
	)
	await expect(page.getByText('No runs on this list yet.')).toBeVisible()

	await condition.getByLabel('Value').fill('CEO')
	await form.getByRole('button', { name: 'Estimate the cost' }).click()
	const estimate = page.getByTestId('estimate')
	await expect(estimate.getByTestId('estimate-rows')).toHaveText('2 leads')
	await expect(estimate).toContainText('search “lead1” · title equals “CEO”')
	await expect(estimate).toContainText('2 credits')
	await page.getByRole('button', { name: 'Run now' }).click()

	await runEnds(page, testInfo)
	const runs = page.getByTestId('runs')
	await expect(runs).toContainText('2 of 2 done')
	await expect(runs).toContainText('Only leads with search “lead1” · title equals “CEO”')
	const results = page.getByTestId('results')
	await expect(results.getByTestId('result-row')).toHaveCount(2)
	await expect(results).toContainText('AI(gpt-4o-mini): Opener for First1')
	await expect(results).toContainText('AI(gpt-4o-mini): Opener for First10')
	await expect(page.getByTestId('credit-balance')).toContainText('98')

	// on the list, only those two leads have an opener
	await page.goto(`/lists/${listId}`)
	await expect(page.getByTestId('lead-row')).toHaveCount(12)
	await expect(page.getByRole('cell', { name: /^AI\(gpt-4o-mini\): Opener for/ })).toHaveCount(2)
})

test("page through a run's results and find its failed rows @no-js", async ({ page }, testInfo) => {
	test.setTimeout(90_000)
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Many', 60)
	// the fake model answers broken JSON for these two
	await setTitles(listId, { 7: 'MALFORMED', 42: 'MALFORMED' }, 'CEO')
	await seedEnrichment(email, {
		name: 'Profile',
		prompt: 'Classify {{company_name}} {{title}}',
		outputColumn: 'profile',
		jsonFields: ['industry'],
	})

	await page.goto(`/lists/${listId}/enrich`)
	const form = page.locator('form#run')
	await form.getByLabel('Enrichment or chain').selectOption({ label: 'Profile' })
	await form.getByLabel(/^Credits/).check()
	await form.getByRole('button', { name: 'Estimate the cost' }).click()
	await expect(page.getByTestId('estimate-rows')).toHaveText('60 leads')
	await page.getByRole('button', { name: 'Run now' }).click()
	await runEnds(page, testInfo)
	await expect(page.getByTestId('runs')).toContainText('58 of 60 done · 2 failed')

	const results = page.getByTestId('results')
	const status = page.getByTestId('results-page')
	await expect(status).toHaveText('1–50 of 60')
	await expect(results.getByTestId('result-row')).toHaveCount(50)
	await page.getByRole('link', { name: 'Next' }).click()
	await expect(status).toHaveText('51–60 of 60')
	await expect(results.getByTestId('result-row')).toHaveCount(10)
	await expect(page.getByRole('link', { name: 'Next' })).toHaveCount(0)
	await page.getByRole('link', { name: 'Previous' }).click()
	await expect(status).toHaveText('1–50 of 60')

	await page
		.getByRole('navigation', { name: 'Rows by status' })
		.getByRole('link', { name: 'Failed (2)' })
		.click()
	await expect(status).toHaveText('1–2 of 2')
	const failed = results.getByTestId('result-row')
	await expect(failed).toHaveCount(2)
	await expect(failed.filter({ hasText: 'lead7@acme7.com' })).toContainText(
		'The model did not answer valid JSON.',
	)
	await expect(failed.filter({ hasText: 'lead42@acme42.com' })).toContainText('Failed')
	await page
		.getByRole('navigation', { name: 'Rows by status' })
		.getByRole('link', { name: 'Pending (0)' })
		.click()
	await expect(results).toContainText('No pending rows.')
})

test("another account's list is a 404 on the enrich page", async ({ page, browser }) => {
	const { email } = await subscribedAccount(page)
	const listId = await seedLeadList(email, 'Mine', 2)
	const other = await browser.newContext()
	try {
		const stranger = await other.newPage()
		await subscribedAccount(stranger)
		const response = await stranger.goto(`/lists/${listId}/enrich?q=lead`)
		expect(response!.status()).toBe(404)
	} finally {
		await other.close()
	}
})
