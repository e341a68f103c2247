import { expect, test } from '@playwright/test'
import { expectNoSeriousA11yViolations, signUp } from './support.ts'

test.describe('no serious accessibility violations', () => {
	// axe runs as a script in the page
	test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'needs JavaScript')
	for (const path of ['/signin', '/signup', '/forgot-password', '/admin-login', '/no-such-page']) {
		test(path, async ({ page }) => {
			await page.goto(path)
			await expectNoSeriousA11yViolations(page)
		})
	}

	test('settings (default layout), at 390 and 1280 px', async ({ page }) => {
		await signUp(page)
		for (const width of [390, 1280]) {
			await page.setViewportSize({ width, height: 900 })
			await page.goto('/settings')
			await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible()
			await expectNoSeriousA11yViolations(page)
		}
	})
})
