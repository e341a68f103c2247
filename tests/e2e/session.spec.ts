import { expect, test, type Page } from '@playwright/test'
import { SignJWT, generateKeyPair } from 'jose'
import { signUp } from './support.ts'

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
	const { email } = await signUp(page)
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
	const response = await request.post('/signin', {
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		data: `email=a%40b.co&password=${'x'.repeat(2 * 1024 * 1024)}`,
		maxRedirects: 0,
	})
	expect(response.status()).toBe(413)
})
