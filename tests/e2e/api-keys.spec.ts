import { expect, test } from '@playwright/test'
import { FAKE_OPENAI_KEY } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'

test('add, test, replace and delete provider keys; no key ever reaches the browser', async ({
	page,
}) => {
	await subscribedAccount(page)
	await page.goto('/api-keys')
	await expect(page).toHaveTitle('API keys | Leadsmith')

	const openai = page.locator('section', { hasText: 'OpenAI-compatible' })
	await openai.getByLabel('API key').fill(FAKE_OPENAI_KEY)
	await openai.getByRole('button', { name: 'Save key' }).click()
	await expect(page.getByTestId('last4-openai')).toHaveText('Key ending in …0000')
	await page
		.locator('section', { hasText: 'OpenAI-compatible' })
		.getByRole('button', { name: 'Test key' })
		.click()
	await expect(page.getByText(/The key works: the provider offers 2 models/)).toBeVisible()

	const apify = page.locator('section', { hasText: 'Apify' })
	await apify.getByLabel('API key').fill('apify_api_wrongwrongwrong1234')
	await apify.getByRole('button', { name: 'Save key' }).click()
	await page
		.locator('section', { hasText: 'Apify' })
		.getByRole('button', { name: 'Test key' })
		.click()
	await expect(page.getByText(/The test failed: The Apify API token is not valid/)).toBeVisible()

	// neither page nor data carries any key beyond its last 4 characters
	for (const path of ['/api-keys', '/api-keys.data', '/enrichments', '/enrichments.data']) {
		const body = await (await page.request.get(path)).text()
		for (const secret of [FAKE_OPENAI_KEY, 'apify_api_wrongwrongwrong1234']) {
			expect(body).not.toContain(secret.slice(0, -4))
			expect(body).not.toContain(secret.slice(0, 12))
		}
	}

	await page
		.locator('section', { hasText: 'Apify' })
		.getByRole('button', { name: 'Delete key' })
		.click()
	await expect(page.getByText('Apify key deleted')).toBeVisible()
	await expect(page.getByTestId('last4-apify')).toHaveCount(0)
})
