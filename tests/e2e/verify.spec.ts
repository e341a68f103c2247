import { expect, test } from '@playwright/test'
import { seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'

// Issue 35: verify a list from its page, with and without JavaScript: the estimate, the run's
// live progress, the summary by status and a group of it on the list page.
test('verify a list: estimate, run, the summary and one status group @no-js', async ({
	page,
}, testInfo) => {
	test.setTimeout(90_000)
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Verify me', 5)
	await withDatabase((client) =>
		client.query(
			`update leads set email = 'invalid-' || email where list_id = $1 and email like 'lead0@%'`,
			[listId],
		),
	)
	await page.goto(`/lists/${listId}`)
	await page.getByRole('link', { name: 'Verify emails' }).click()
	await expect(page).toHaveTitle('Verify emails | Leadsmith')
	const form = page.locator('form#verify')
	await form.getByLabel(/^Credits/).check()
	await form.getByRole('button', { name: 'Estimate' }).click()
	const estimate = page.getByTestId('verify-estimate')
	await expect(estimate.getByTestId('estimate-to-check')).toHaveText('5')
	await expect(estimate.getByTestId('estimate-credits')).toContainText('Up to 5 credits')
	await page.getByRole('button', { name: 'Verify now' }).click()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByTestId('verify-run').getByText('Done', { exact: true })).toBeVisible({
			timeout: 1000,
		})
	}).toPass({ timeout: 45_000 })
	await expect(page.getByTestId('status-count-valid')).toHaveText('Valid: 4')
	await page.getByTestId('status-count-invalid').click()
	await expect(page.getByTestId('lead-row')).toHaveCount(1)
	await expect(page.getByTestId('lead-row').first()).toContainText('Invalid')
})
