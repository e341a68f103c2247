// Issue 32 point 4: a password reset for a user with two-factor on, by the mailed link opened in
// another browser and by the mailed code, JavaScript on and off; and a second request within a
// minute, which sends nothing and says so.
import { expect, test, type Browser, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../../app/auth-service/totp.server.ts'
import { lastMailId, latestMail } from './mail.ts'
import { jsEnabled, PASSWORD, signedUp, signIn, signOut } from './support.ts'

test.describe.configure({ timeout: 240_000 })

/** the code an authenticator app shows, `offset` steps from now */
const code = (secret: string, offset = 0) => totpCode(secret, totpStep(new Date()) + offset)

/** A signed-out user with two-factor on, and the key their authenticator app holds. */
async function withTwoFactor(page: Page) {
	const { email } = await signedUp(page)
	await page.goto('/settings')
	await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
	const secret = (await page.getByTestId('two-factor-secret').textContent())!.trim()
	await page.getByLabel('Code from the app').fill(code(secret))
	await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
	await expect(page.getByText('On: signing in asks for a code')).toBeVisible()
	await signOut(page)
	return { email, secret }
}

async function askForReset(page: Page, email: string) {
	const before = await lastMailId(email)
	await page.goto('/forgot-password')
	await page.getByLabel('Email', { exact: true }).fill(email)
	await page.getByRole('button', { name: 'Send reset link' }).click()
	await expect(page).toHaveURL(/\/reset-password\?email=/)
	return latestMail(email, { after: before })
}

async function otherBrowser(browser: Browser, baseURL: string | undefined, js: boolean) {
	const context = await browser.newContext({ baseURL, javaScriptEnabled: js })
	return { context, page: await context.newPage() }
}

/** The authenticator step of the reset, then the new password. */
async function secondFactorThenPassword(page: Page, secret: string, password: string) {
	await page.waitForURL('**/signin/verify?redirectTo=%2Freset-password')
	await expect(
		page.getByText('Enter the code from your authenticator app, then choose your new password.'),
	).toBeVisible()
	// the next step's code: the one that turned two-factor on counts once
	await page.getByLabel('Authentication code').fill(code(secret, 1))
	await page.getByRole('button', { name: 'Verify' }).click()
	await page.waitForURL((url) => url.pathname === '/reset-password' && !url.search)
	await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
	await page.getByLabel('New password', { exact: true }).fill(password)
	await page.getByLabel('Repeat the new password').fill(password)
	await page.getByRole('button', { name: 'Save new password' }).click()
	// a new account without a plan lands on /subscription
	await page.waitForURL((url) => url.pathname !== '/reset-password')
	await expect(page.getByText('Your password has been changed.')).toBeVisible()
}

/** The new password signs in (and two-factor is still on); the old one does not. */
async function passwordIs(page: Page, email: string, password: string) {
	await page.goto('/signin')
	await signIn(page, email, PASSWORD)
	await expect(page.getByText('Invalid email or password.')).toBeVisible()
	await signIn(page, email, password)
	await page.waitForURL('**/signin/verify')
}

test('with two-factor: the link opened in another browser leaves the mailed code working @no-js', async ({
	page,
	browser,
	baseURL,
}, testInfo) => {
	const { email, secret } = await withTwoFactor(page)
	const mail = await askForReset(page, email)
	expect(mail.code).toMatch(/^\d{6}$/)
	// a glance at the link on the phone (or a mail scanner) spends nothing
	const phone = await otherBrowser(browser, baseURL, jsEnabled(testInfo))
	try {
		await phone.page.goto(mail.link!)
		await expect(phone.page.getByRole('heading', { name: 'Reset your password' })).toBeVisible()
		await expect(phone.page.getByRole('button', { name: 'Continue' })).toBeVisible()
	} finally {
		await phone.context.close()
	}
	// back on the computer, the code from the same mail
	await page.getByLabel('Code from the email').fill(mail.code!)
	await page.getByLabel('New password', { exact: true }).fill('by-code-pass-5')
	await page.getByLabel('Repeat the new password').fill('by-code-pass-5')
	await page.getByRole('button', { name: 'Save new password' }).click()
	// the mailed code is the first factor: the authenticator comes next, then the password
	await secondFactorThenPassword(page, secret, 'by-code-pass-6')
	await signOut(page)
	await passwordIs(page, email, 'by-code-pass-6')
})

test('with two-factor: the link in another browser asks for the authenticator code, then the new password @no-js', async ({
	page,
	browser,
	baseURL,
}, testInfo) => {
	const { email, secret } = await withTwoFactor(page)
	const mail = await askForReset(page, email)
	const phone = await otherBrowser(browser, baseURL, jsEnabled(testInfo))
	try {
		await phone.page.goto(mail.link!)
		await phone.page.getByRole('button', { name: 'Continue' }).click()
		await secondFactorThenPassword(phone.page, secret, 'from-phone-pass-7')
	} finally {
		await phone.context.close()
	}
	// the link was used: the code from the same mail no longer counts
	await page.getByLabel('Code from the email').fill(mail.code!)
	await page.getByLabel('New password', { exact: true }).fill('late-code-pass-8')
	await page.getByLabel('Repeat the new password').fill('late-code-pass-8')
	await page.getByRole('button', { name: 'Save new password' }).click()
	await expect(
		page.getByText('This code is wrong or has expired. Ask for a new one.'),
	).toBeVisible()
	await passwordIs(page, email, 'from-phone-pass-7')
})

test('a second reset request within a minute sends nothing and says so @no-js', async ({
	page,
}) => {
	const { email } = await signedUp(page)
	await signOut(page)
	const first = await askForReset(page, email)
	await expect(page.getByText('If an account exists for that email, we sent a link')).toBeVisible()
	await page.goto('/forgot-password')
	await page.getByLabel('Email', { exact: true }).fill(email)
	await page.getByRole('button', { name: 'Send reset link' }).click()
	await expect(page).toHaveURL(/\/reset-password\?email=/)
	await expect(page.getByText('No new email was sent')).toBeVisible()
	expect(await lastMailId(email)).toBe(first.id)
	// the first mail's code still works
	await page.getByLabel('Code from the email').fill(first.code!)
	await page.getByLabel('New password', { exact: true }).fill('first-mail-pass-9')
	await page.getByLabel('Repeat the new password').fill('first-mail-pass-9')
	await page.getByRole('button', { name: 'Save new password' }).click()
	// a new account without a plan lands on /subscription
	await page.waitForURL((url) => url.pathname !== '/reset-password')
	await expect(page.getByText('Your password has been changed.')).toBeVisible()
})

test('two-factor: a recovery code from the set-up gets a user without their phone in @no-js', async ({
	page,
}) => {
	const { email } = await signedUp(page)
	await page.goto('/settings')
	await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
	const secret = (await page.getByTestId('two-factor-secret').textContent())!.trim()
	await page.getByLabel('Code from the app').fill(code(secret))
	await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
	await expect(page.getByText('Save these codes somewhere safe now')).toBeVisible()
	const codes = (await page.getByTestId('recovery-codes').locator('li').allTextContents()).map(
		(c) => c.trim(),
	)
	expect(codes).toHaveLength(10)
	// shown once
	await page.reload()
	await expect(page.getByText('10 unused codes left.')).toBeVisible()
	await expect(page.getByTestId('recovery-codes')).toHaveCount(0)
	await signOut(page)

	await signIn(page, email)
	await page.waitForURL('**/signin/verify')
	await page.getByText('Lost your phone? Use a recovery code').click()
	await page.getByLabel('Recovery code').fill(codes[2]!)
	await page.getByRole('button', { name: 'Use recovery code' }).click()
	await page.waitForURL((url) => url.pathname === '/settings')
	await expect(page.getByText('You signed in with a recovery code')).toBeVisible()
	await expect(page.getByRole('button', { name: 'Set up two-factor authentication' })).toBeVisible()
})
