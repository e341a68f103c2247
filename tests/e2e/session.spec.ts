import { expect, test, type Browser, type Page } from '@playwright/test'
import { signedUp, signIn, signOut, withDatabase } from './support.ts'

// The HTTP-only checks of a tampered, forged or expired cookie and of an oversize body are in
// app/server/http-hardening.test.ts (decision 0069).

test.describe('an ended session stops a copied cookie on the next request', () => {
	// several sign-ins and browsers per test
	test.slow()
	/** the session cookie and its chunks, not the PKCE code-verifier cookies */
	const isSessionCookie = (c: { name: string }) => /^sb-localhost-auth-token(\.\d+)?$/.test(c.name)

	/** The session cookies of `page`, as someone copying them would take them. */
	async function copiedCookies(page: Page) {
		const cookies = (await page.context().cookies()).filter(isSessionCookie)
		expect(cookies.length, 'signed in').toBeGreaterThan(0)
		return cookies
	}

	/** Opens /settings in a fresh browser holding `cookies`; where it lands and what it keeps. */
	async function replay(browser: Browser, cookies: Awaited<ReturnType<typeof copiedCookies>>) {
		const context = await browser.newContext({
			javaScriptEnabled: test.info().project.use.javaScriptEnabled,
		})
		try {
			await context.addCookies(cookies)
			const page = await context.newPage()
			await page.goto('/settings')
			const kept = (await context.cookies()).filter(isSessionCookie)
			return { path: new URL(page.url()).pathname, kept: kept.length }
		} finally {
			await context.close()
		}
	}

	test('after sign-out the copied cookie lands on /signin and is cleared', async ({
		page,
		browser,
	}) => {
		await signedUp(page)
		const cookies = await copiedCookies(page)
		expect(await replay(browser, cookies)).toEqual({ path: '/settings', kept: cookies.length })
		await signOut(page)
		expect(await replay(browser, cookies)).toEqual({ path: '/signin', kept: 0 })
	})

	test('a password change signs the other browser out, not this one @no-js', async ({
		page,
		browser,
	}) => {
		const { email } = await signedUp(page)
		const other = await browser.newContext({
			javaScriptEnabled: test.info().project.use.javaScriptEnabled,
		})
		try {
			const otherPage = await other.newPage()
			await otherPage.goto('/signin')
			await signIn(otherPage, email)
			await otherPage.waitForURL((url) => url.pathname !== '/signin')

			await page.goto('/settings')
			await page.getByLabel('New password', { exact: true }).fill('another-horse-8')
			await page.getByLabel('Repeat the new password').fill('another-horse-8')
			await page.getByRole('button', { name: 'Change password' }).click()
			await expect(page.getByText('Password changed').first()).toBeVisible()

			await otherPage.goto('/settings')
			await expect(otherPage).toHaveURL(/\/signin\?redirectTo=%2Fsettings$/)
			await page.goto('/settings')
			await expect(page).toHaveURL(/\/settings$/)
		} finally {
			await other.close()
		}
	})

	test('a banned user is signed out on the next request', async ({ page }) => {
		const { email } = await signedUp(page)
		await page.goto('/settings')
		await expect(page).toHaveURL(/\/settings$/)
		await withDatabase((db) =>
			db.query(`update auth.users set banned_until = now() + interval '1 day' where email = $1`, [
				email,
			]),
		)
		await page.goto('/settings')
		await expect(page).toHaveURL(/\/signin\?redirectTo=%2Fsettings$/)
		expect((await page.context().cookies()).filter(isSessionCookie)).toEqual([])
	})
})
