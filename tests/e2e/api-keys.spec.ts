import { expect, test, type Page } from '@playwright/test'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { FAKE_OPENAI_KEY } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled } from './support.ts'

let eb: FakeEmailBison
test.beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 1 })
})
test.afterAll(async () => {
	await eb.close()
})

const WRONG_EMAILBISON_KEY = 'eb-wrong-wrong-wrong-5678'

async function connectEmailBison(page: Page) {
	await page.goto('/settings')
	await page.getByLabel('EmailBison URL').fill(`${eb.url}/api`)
	await page.getByLabel('Super-admin API key').fill(eb.superAdminKey)
	await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
	await expect(page.getByText('EmailBison settings saved')).toBeVisible()
}

test('add, test, replace and delete provider keys; no key ever reaches the browser @no-js', async ({
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

	// the EmailBison key is kept with the account's EmailBison URL (from Settings): none yet
	const emailbison = () => page.locator('section', { hasText: 'Tested against your EmailBison' })
	await emailbison().getByLabel('API key').fill(WRONG_EMAILBISON_KEY)
	await emailbison().getByRole('button', { name: 'Save key' }).click()
	await expect(
		emailbison().getByText(
			'EmailBison runs on your own instance: add its URL in Settings first, then save the key here.',
		),
	).toBeVisible()
	await expect(page.getByTestId('last4-emailbison')).toHaveCount(0)
	await expect(page).toHaveURL(/\/api-keys/)

	await connectEmailBison(page)
	await page.goto('/api-keys')
	await emailbison().getByLabel('API key').fill(WRONG_EMAILBISON_KEY)
	await emailbison().getByRole('button', { name: 'Save key' }).click()
	await expect(page.getByTestId('last4-emailbison')).toHaveText('Key ending in …5678')
	await emailbison().getByRole('button', { name: 'Test key' }).click()
	await expect(
		emailbison().getByText(`The test failed: EmailBison at ${eb.url}/api refused this API key.`),
	).toBeVisible()
	// the badge tells the truth, and the reason stays after the page is opened again
	await expect(emailbison().getByText('Failed', { exact: true })).toBeVisible()
	await page.goto('/api-keys')
	await expect(emailbison().getByText('Failed', { exact: true })).toBeVisible()
	await expect(page.getByTestId('test-error-emailbison')).toHaveText(
		`The test failed: EmailBison at ${eb.url}/api refused this API key.`,
	)
	const callsBefore = eb.count('GET /api/users')
	await emailbison().getByLabel('New key (replaces the saved one)').fill(eb.superAdminKey)
	await emailbison().getByRole('button', { name: 'Replace key' }).click()
	await expect(page.getByTestId('last4-emailbison')).toHaveText('Key ending in …1234')
	await emailbison().getByRole('button', { name: 'Test key' }).click()
	await expect(
		page.getByText(`The key works: EmailBison user Fake Admin at ${eb.url}/api.`),
	).toBeVisible()
	await expect(emailbison().getByText('Tested', { exact: true })).toBeVisible()
	expect(eb.count('GET /api/users')).toBe(callsBefore + 1)

	// neither page nor data carries any key beyond its last 4 characters
	for (const path of [
		'/api-keys',
		'/api-keys.data',
		'/enrichments',
		'/enrichments.data',
		'/settings',
		'/settings.data',
	]) {
		const body = await (await page.request.get(path)).text()
		for (const secret of [
			FAKE_OPENAI_KEY,
			'apify_api_wrongwrongwrong1234',
			WRONG_EMAILBISON_KEY,
			eb.superAdminKey,
		]) {
			expect(body).not.toContain(secret.slice(0, -4))
			expect(body).not.toContain(secret.slice(0, 12))
		}
	}

	// the Apify key failed its test: its badge says so
	await expect(
		page.locator('section', { hasText: 'Apify' }).getByText('Failed', { exact: true }),
	).toBeVisible()
	// deleting asks first
	const apifySection = page.locator('section', { hasText: 'Apify' })
	await expect(apifySection.getByRole('button', { name: 'Delete “Apify key”' })).toBeHidden()
	await apifySection.locator('summary', { hasText: 'Delete' }).click()
	await apifySection.getByRole('button', { name: 'Delete “Apify key”' }).click()
	await expect(page.getByText('Apify key deleted')).toBeVisible()
	await expect(page.getByTestId('last4-apify')).toHaveCount(0)
})

test('on a phone, a failed key test answers in view, next to its button @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page)
	await page.setViewportSize({ width: 390, height: 800 })
	await connectEmailBison(page)
	await page.goto('/api-keys')
	const emailbison = () => page.locator('section', { hasText: 'Tested against your EmailBison' })
	await emailbison().getByLabel('API key').fill(WRONG_EMAILBISON_KEY)
	await emailbison().getByRole('button', { name: 'Save key' }).click()
	await expect(page.getByTestId('last4-emailbison')).toBeInViewport()
	await expect(emailbison().getByLabel('New key (replaces the saved one)')).toHaveValue('')
	// the saved-key message covers the bottom of a phone's screen: with JavaScript it has a close
	// button; without, it fades out of the way after 3 seconds (the click waits for that)
	if (jsEnabled(testInfo)) await page.getByRole('button', { name: 'Close toast' }).click()
	await emailbison().getByRole('button', { name: 'Test key' }).click()
	await expect(emailbison().getByRole('alert')).toContainText('refused this API key')
	await expect(emailbison().getByRole('alert')).toBeInViewport()
	await expect(emailbison().getByRole('button', { name: 'Test key' })).toBeInViewport()
})
