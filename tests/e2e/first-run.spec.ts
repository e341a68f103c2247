// Issue 16 point 1: `npm install && npm start` runs NODE_ENV=production on localhost without
// Stripe. A newcomer signs up and can still pay (on the TEST MODE page) instead of being stuck.
import { expect as baseExpect, test } from '@playwright/test'
import { startKeyedServer, type KeyedServer } from './keyed-server.ts'
import { PASSWORD, uniqueEmail } from './support.ts'

// A busy machine answers slowly: wait for what a user waits for, up to 30 s.
const expect = baseExpect.configure({ timeout: 30_000 })

test.describe('a default start (production on localhost, no Stripe)', () => {
	test.describe.configure({ mode: 'serial', timeout: 180_000 })
	let server: KeyedServer

	// eslint-disable-next-line no-empty-pattern -- Playwright wants a pattern before testInfo
	test.beforeAll(async ({}, testInfo) => {
		test.setTimeout(180_000)
		server = await startKeyedServer({
			offset: testInfo.project.name === 'js' ? 45 : 47,
			posthog: false,
			// what `npm start` gives: production, APP_URL on localhost, no PAYMENTS, no Stripe
			env: { NODE_ENV: 'production', WORKERS: '1' },
		})
	})

	test.afterAll(async () => {
		await server?.stop()
	})

	test('a new user signs up, sees TEST MODE and pays for a plan', async ({ page }) => {
		const email = uniqueEmail('first')
		await page.goto(`${server.baseURL}/signup`)
		await page.getByLabel('Your name').fill('Grace Hopper')
		await page.getByLabel('Work email').fill(email)
		await page.getByLabel('Password').fill(PASSWORD)
		await page.getByRole('button', { name: 'Create account' }).click()
		await expect(page).toHaveURL(/\/subscription$/, { timeout: 30_000 })

		await expect(page.getByTestId('test-mode')).toBeVisible()
		await expect(page.getByTestId('payments-not-set-up')).toHaveCount(0)
		await page.getByRole('button', { name: 'Subscribe to Monthly Starter' }).click()
		await expect(page).toHaveURL(/\/test-payment\/[0-9a-f-]{36}$/)
		await expect(page.getByTestId('test-mode')).toBeVisible()
		await page.getByRole('button', { name: 'Pay $49.00 (test)' }).click()
		// the first subscription leads on to onboarding; the plan is active
		await page.waitForURL((url) => !url.pathname.startsWith('/test-payment'))
		await page.goto(`${server.baseURL}/subscription`)
		await expect(page.getByTestId('current-plan')).toHaveText('Monthly Starter')

		await page.goto(`${server.baseURL}/purchase`)
		await expect(page.getByTestId('test-mode')).toBeVisible()
		await expect(page.getByRole('button', { name: /Buy/ }).first()).toBeVisible()
	})
})
