import { expect, test } from '@playwright/test'
import { jsEnabled, PASSWORD, signedUp, signIn, signOut } from './support.ts'

// docs/decisions/0030-sign-in-page-javascript-budget.md: the sign-in page preloads few files
// and loads zod and sonner later; its form and toasts must still work with JavaScript on and off.
test('the sign-in page preloads at most 10 files, checks its form and shows the toast @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await signedUp(page)
	await signOut(page)
	await page.goto('/signin')
	const html = await (await page.request.get('/signin')).text()
	const preloads = html.match(/<link rel="modulepreload"/g) ?? []
	expect(preloads.length).toBeGreaterThan(0)
	expect(preloads.length).toBeLessThanOrEqual(10)

	if (jsEnabled(testInfo)) {
		// the form is checked in the browser once zod has loaded: it switches off the browser's own checks
		await expect(page.locator('form#signin')).toHaveAttribute('novalidate', '')
	} else {
		await page.locator('form#signin').evaluate((form) => form.setAttribute('novalidate', ''))
	}
	await signIn(page, 'ada@@example', '')
	await expect(page.getByText('Enter a valid email address')).toBeVisible()
	await expect(page.getByText('Enter your password')).toBeVisible()

	await signIn(page, email, PASSWORD)
	await page.waitForURL((url) => url.pathname !== '/signin')
	await expect(page.getByText('Signed in', { exact: true })).toBeVisible()
})
