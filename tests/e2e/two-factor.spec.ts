import { expect, test } from '@playwright/test'
import { totpCode, totpStep } from '../../app/auth-service/totp.server.ts'
import { signedUp, signIn, signOut } from './support.ts'

/** the code an authenticator app shows, `offset` steps from now */
const code = (secret: string, offset = 0) => totpCode(secret, totpStep(new Date()) + offset)

test('two-factor: set up in settings, then signing in asks for the code @no-js', async ({
	page,
}) => {
	// one flow of about twenty steps: on a busy machine it takes longer than one page's 60 s
	test.setTimeout(180_000)
	const { email } = await signedUp(page)
	await page.goto('/settings')
	await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
	await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible()
	const secret = (await page.getByTestId('two-factor-secret').textContent())!.trim()
	expect(secret).toMatch(/^[A-Z2-7]{32}$/)
	await page.getByLabel('Code from the app').fill(code(secret))
	await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
	await expect(page.getByText('On: signing in asks for a code')).toBeVisible()

	await signOut(page)
	await signIn(page, email)
	await page.waitForURL('**/signin/verify')
	// a password-only session is not signed in: other pages send it back to the code
	await page.goto('/settings')
	await page.waitForURL('**/signin/verify?redirectTo=%2Fsettings')
	await page
		.getByLabel('Authentication code')
		.fill(String((Number(code(secret)) + 500_000) % 1_000_000).padStart(6, '0'))
	await page.getByRole('button', { name: 'Verify' }).click()
	await expect(page.getByText('That code is not right.')).toBeVisible()
	await expect(page.getByLabel('Authentication code')).toHaveAttribute('aria-invalid', 'true')
	// the next code (the one used to turn it on counts once)
	await page.getByLabel('Authentication code').fill(code(secret, 1))
	await page.getByRole('button', { name: 'Verify' }).click()
	await page.waitForURL('**/settings')
	await expect(page.getByText('On: signing in asks for a code')).toBeVisible()
})
