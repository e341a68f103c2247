import { expect, test } from '@playwright/test'
import { latestMailLink, signIn, signOut, signUp } from './support.ts'

// The local mailbox (no SMTP, as the e2e server runs) holds reset links: only a signed-in
// platform admin reads it; anyone else learns nothing from it, as a page or as data.
const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

test('only a signed-in platform admin reads the local mailbox', async ({ page, browser }) => {
	const { email } = await signUp(page)
	await signOut(page)
	await page.goto('/forgot-password')
	await page.getByLabel('Email', { exact: true }).fill(email)
	await page.getByRole('button', { name: 'Send reset link' }).click()
	await expect(page.getByText('If an account exists for that email, we sent a link')).toBeVisible()
	const link = await latestMailLink(page, email)
	const token = new URL(link).searchParams.get('token')!
	expect(token).toBeTruthy()

	// a stranger: the page sends them to the admin sign-in, its data answers nothing
	const stranger = await browser.newContext()
	const strangerPage = await stranger.newPage()
	await strangerPage.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`)
	await expect(strangerPage).toHaveURL(/\/admin-login$/)
	for (const path of ['/dev/mailbox', '/dev/mailbox.data', `/dev/mailbox.data?to=${email}`]) {
		const response = await stranger.request.get(path, { maxRedirects: 0 })
		expect(await response.text()).not.toContain(token)
		expect([302, 202, 204, 404]).toContain(response.status())
	}
	await stranger.close()

	// a signed-in user who is not a platform admin: no such page
	await signUp(page)
	const asUser = await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`)
	expect(asUser?.status()).toBe(404)
	await expect(page.getByText(token)).toHaveCount(0)
	await signOut(page)

	// the platform admin reads it, links included
	await page.goto('/admin-login')
	await signIn(page, ADMIN.email, ADMIN.password)
	await page.waitForURL('**/admin-dashboard')
	const asAdmin = await page.goto(`/dev/mailbox?to=${encodeURIComponent(email)}`)
	expect(asAdmin?.headers()['cache-control']).toBe('no-store')
	const mail = page.getByTestId('mail').first()
	await expect(mail).toContainText('Reset')
	await expect(mail.getByRole('link').first()).toHaveAttribute('href', link)
})
