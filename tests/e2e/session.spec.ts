import { expect, test, type Browser, type Page } from '@playwright/test'
import { SignJWT, generateKeyPair } from 'jose'
import { signedUp, signIn, signOut, withDatabase } from './support.ts'

const COOKIE = 'sb-localhost-auth-token'

function sessionCookie(session: object) {
	return `base64-${Buffer.from(JSON.stringify(session)).toString('base64url')}`
}

async function visitSettingsWith(page: Page, value: string) {
	await page.context().clearCookies()
	await page.context().addCookies([{ name: COOKIE, value, url: test.info().project.use.baseURL! }])
	const response = await page.request.get('/settings', { maxRedirects: 0 })
	return response
}

test('a tampered session cookie counts as signed out, never a 500', async ({ page }) => {
	const response = await visitSettingsWith(page, 'base64-bm90IGpzb24')
	expect(response.status()).toBe(302)
	expect(response.headers()['location']).toContain('/signin')
})

test('a foreign-signed or expired access token counts as signed out', async ({ page }) => {
	const { email } = await signedUp(page)
	const cookies = await page.context().cookies()
	const real = cookies.find((c) => c.name.startsWith(COOKIE))
	expect(real, 'sign-up sets the session cookie').toBeTruthy()

	const { privateKey } = await generateKeyPair('ES256')
	const now = Math.floor(Date.now() / 1000)
	const forged = await new SignJWT({ email, role: 'authenticated', aud: 'authenticated' })
		.setProtectedHeader({ alg: 'ES256', kid: 'forged', typ: 'JWT' })
		.setSubject('00000000-0000-0000-0000-000000000001')
		.setIssuedAt(now)
		.setExpirationTime(now + 3600)
		.sign(privateKey)
	const forgedSession = {
		access_token: forged,
		refresh_token: 'nope',
		token_type: 'bearer',
		expires_in: 3600,
		expires_at: now + 3600,
		user: { id: '00000000-0000-0000-0000-000000000001', email },
	}
	const forgedResponse = await visitSettingsWith(page, sessionCookie(forgedSession))
	expect(forgedResponse.status()).toBe(302)
	expect(forgedResponse.headers()['location']).toContain('/signin')

	const expiredSession = { ...forgedSession, expires_at: now - 10, refresh_token: 'not-a-token' }
	const expiredResponse = await visitSettingsWith(page, sessionCookie(expiredSession))
	expect(expiredResponse.status()).toBe(302)
	expect(expiredResponse.headers()['location']).toContain('/signin')
})

test('an oversize body is refused with 413', async ({ request }) => {
	// the server answers 413 and closes the connection without reading the body, so a client
	// still writing it may see the connection end first (app/server/http-hardening.test.ts
	// reads the 413 over a raw socket)
	const status = await request
		.post('/signin', {
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			data: `email=a%40b.co&password=${'x'.repeat(2 * 1024 * 1024)}`,
			maxRedirects: 0,
		})
		.then((response) => response.status())
		.catch((error: Error) => error.message)
	expect(String(status)).toMatch(/^413$|EPIPE|ECONNRESET|socket hang up/)
})

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
