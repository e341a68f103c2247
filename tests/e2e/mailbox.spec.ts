import { expect, test } from '@playwright/test'
import { latestMailLink, signedUp, signIn } from './support.ts'

// The local mailbox (no SMTP, as the e2e server runs) holds reset links: only a signed-in
// platform admin reads it; anyone else learns nothing from it, as a page or as data.
const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

test('only a signed-in platform admin reads the local mailbox', async ({ page, browser }) => {
	// a sign-up, a reset and the admin's sign-in: slow on a busy machine
	test.setTimeout(240_000)
	const { email } = await signedUp(page)

	// a stranger asks for a reset of that account, and cannot read the mail
	const stranger = await browser.newContext()
	const strangerPage = await stranger.newPage()
	await strangerPage.goto('/forgot-password')
	await strangerPage.getByLabel('Email', { exact: true }).fill(email)
	await strangerPage.getByRole('button', { name: 'Send reset link' }).click()
	await expect(
		strangerPage.getByText('If an account exists for that email, we sent a link'),
	).toBeVisible({ timeout: 30_000 })
	const link = await latestMailLink(strangerPage, email)
	// the reset link carries a token hash (any browser may open it)
	const params = new URL(link).searchParams
	const token = (params.get('token_hash') ?? params.get('token'))!
	expect(token).toBeTruthy()
	await strangerPage.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`)
	await expect(strangerPage).toHaveURL(/\/admin-login$/)
	for (const path of ['/dev/mailbox', '/dev/mailbox.data', `/dev/mailbox.data?to=${email}`]) {
		const response = await stranger.request.get(path, { maxRedirects: 0 })
		expect(await response.text()).not.toContain(token)
		expect([202, 204, 302, 404]).toContain(response.status())
	}
	await stranger.close()

	// a signed-in user who is not a platform admin: no such page
	const asUser = await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`)
	expect(asUser?.status()).toBe(404)
	expect(await page.content()).not.toContain(token)

	// the platform admin reads it, links included
	const admin = await browser.newContext()
	const adminPage = await admin.newPage()
	await adminPage.goto('/admin-login')
	await signIn(adminPage, ADMIN.email, ADMIN.password)
	await adminPage.waitForURL('**/admin-dashboard')
	const asAdmin = await adminPage.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`)
	// a signed-in answer is never kept (private, no-store on every signed-in page)
	expect(asAdmin?.headers()['cache-control']).toContain('no-store')
	const mail = adminPage.getByTestId('mail').first()
	await expect(mail).toContainText('Reset')
	await expect(mail.getByRole('link').first()).toHaveAttribute('href', link)
	await admin.close()
})
