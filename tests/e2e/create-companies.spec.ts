import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled } from './support.ts'

test('a company list from pasted domains @no-js', async ({ page }, testInfo) => {
	await subscribedAccount(page, { credits: 100 })
	await page.goto('/create-companies')
	await page.getByLabel('Company domains').fill('acme.com\nhttps://www.beta.io\nunknown-gamma.dev')
	await page.getByLabel('List name').fill('My targets')
	await page.getByLabel('Credits').check()
	await page.getByRole('button', { name: 'Create company list' }).click()
	await expect(page).toHaveURL(/\/scrape/)
	const row = page.getByTestId('scrape-row').filter({ hasText: 'My targets' })
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(row.getByText('Done', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 20_000 })
	// the unknown domain is not a company, and is not charged
	await expect(row.getByTestId('found')).toHaveText('2')
	await expect(page.getByTestId('credit-balance')).toContainText('98')
})

test('invalid domains are reported at the field with their line @no-js', async ({ page }) => {
	await subscribedAccount(page, { credits: 100 })
	const response = await page.request.post('/create-companies', {
		multipart: {
			intent: 'create',
			source: 'domains',
			name: 'x',
			domains: 'acme.com\nbad domain',
			payWith: 'credits',
		},
		maxRedirects: 0,
	})
	expect(response.status()).toBe(400)
	expect(await response.text()).toContain('line 2: “bad”')
})
