import { expect, test } from '@playwright/test'
import { latestMailLink, PASSWORD, signIn, signOut, signUp, uniqueEmail } from './support.ts'

test('sign up, sign out, then wrong and right password @no-js', async ({ page }) => {
	const { email } = await signUp(page)
	// No plan yet: the dashboard sends a new account on to choose a subscription.
	await expect(page).toHaveURL(/\/subscription$/)

	await page.goto('/settings')
	await expect(page.getByText(`Signed in as ${email}`)).toBeVisible()
	await signOut(page)

	await signIn(page, email, 'not-my-password-1')
	await expect(page.getByText('Invalid email or password.')).toBeVisible()
	await expect(page).toHaveURL(/\/signin$/)

	await signIn(page, email)
	await page.waitForURL((url) => url.pathname !== '/signin')
	await page.goto('/settings')
	await expect(page.getByText(`Signed in as ${email}`)).toBeVisible()
})

test('a signed-out visit to /settings goes to sign in and comes back @no-js', async ({ page }) => {
	const { email } = await signUp(page)
	await signOut(page)

	await page.goto('/settings')
	await expect(page).toHaveURL(/\/signin\?redirectTo=%2Fsettings$/)
	await signIn(page, email)
	await expect(page).toHaveURL(/\/settings$/)
	await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible()
})

test('forgot and reset password through the mailed link @no-js', async ({ page }) => {
	const { email } = await signUp(page)
	await signOut(page)

	await page.goto('/forgot-password')
	await page.getByLabel('Email', { exact: true }).fill(email)
	await page.getByRole('button', { name: 'Send reset link' }).click()
	await expect(page.getByText('If an account exists for that email, we sent a link')).toBeVisible()

	const link = await latestMailLink(page, email)
	await page.goto(link)
	await page.getByRole('button', { name: 'Continue' }).click()
	await expect(page).toHaveURL(/\/reset-password$/)
	await page.getByLabel('New password', { exact: true }).fill('brand-new-pass-9')
	await page.getByLabel('Repeat the new password').fill('brand-new-pass-9')
	await page.getByRole('button', { name: 'Save new password' }).click()
	await page.waitForURL((url) => url.pathname !== '/reset-password')

	await signOut(page)
	await signIn(page, email, PASSWORD)
	await expect(page.getByText('Invalid email or password.')).toBeVisible()
	await signIn(page, email, 'brand-new-pass-9')
	await page.waitForURL((url) => url.pathname !== '/signin')
})

test('admin login refuses a normal user and lets the admin in @no-js', async ({ page }) => {
	const { email } = await signUp(page)
	await signOut(page)

	await page.goto('/admin-login')
	await signIn(page, email)
	await expect(page.getByText('This account is not a platform administrator.')).toBeVisible()
	// and the refused user is not left signed in
	await page.goto('/settings')
	await expect(page).toHaveURL(/\/signin/)

	await page.goto('/admin-login')
	await signIn(page, 'admin@e2e.test', 'admin-password-1')
	await page.waitForURL((url) => url.pathname !== '/admin-login')
})

test('a signed-in user without a subscription is sent to /subscription', async ({ page }) => {
	await signUp(page)
	const response = await page.request.get('/', { maxRedirects: 0 })
	expect(response.status()).toBe(302)
	expect(response.headers()['location']).toBe('/subscription')
})

test.describe('bad input on sign-up', () => {
	// Posted as a browser without JavaScript would, past the browser's own checks.
	test('malformed email, short password and an existing email get messages at the field @no-js', async ({
		page,
	}) => {
		const response = await page.request.post('/signup', {
			form: { fullName: 'Ada', email: 'not-an-email', password: 'short' },
			maxRedirects: 0,
		})
		expect(response.status()).toBe(400)
		const html = await response.text()
		expect(html).toContain('Enter a valid email address')
		expect(html).toContain('Use at least 8 characters')

		const { email } = await signUp(page)
		await signOut(page)
		const again = await page.request.post('/signup', {
			form: { fullName: 'Ada', email, password: PASSWORD },
			maxRedirects: 0,
		})
		expect(again.status()).toBe(400)
		expect(await again.text()).toContain('An account with this email already exists')
	})

	test('the form shows field errors in the browser @no-js', async ({ page }) => {
		await page.goto('/signup')
		// Server-side validation is what counts: switch off the browser's own checks.
		await page.locator('form').evaluate((form) => form.setAttribute('novalidate', ''))
		await page.getByLabel('Your name').fill('Ada')
		await page.getByLabel('Work email').fill('ada@@example')
		await page.getByLabel('Password').fill('abcdefgh')
		await page.getByRole('button', { name: 'Create account' }).click()
		await expect(page.getByText('Enter a valid email address')).toBeVisible()
		await expect(page.getByText('Use both letters and digits')).toBeVisible()
		await expect(page).toHaveURL(/\/signup$/)
	})
})

test('repeated wrong passwords are rate limited @no-js', async ({ page }) => {
	const email = uniqueEmail('limited')
	let attempt = 0
	const wrong = () =>
		page.request.post('/signin', {
			form: { email, password: `wrong-password-${attempt++}` },
			maxRedirects: 0,
		})
	// three free failures from this IP (AUTH_RATE_LIMIT_EMAIL=5 failures per email and IP)
	for (let i = 0; i < 3; i++) expect((await wrong()).status()).toBe(400)
	// then a backoff that doubles, whatever the machine's speed: more tries are refused
	await expect
		.poll(async () => {
			const response = await wrong()
			return response.status() === 429 && (await response.text()).includes('Too many attempts')
		})
		.toBe(true)
})
