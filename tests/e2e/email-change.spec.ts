import { expect, test } from '@playwright/test'
import { latestMail } from './mail.ts'
import { signIn, signOut, signUp, uniqueEmail } from './support.ts'

test('email change: confirmed from both addresses, then signed in with the new one @no-js', async ({
	page,
}) => {
	// one flow of about fifteen steps: on a busy machine longer than one page's 60 s
	test.setTimeout(180_000)
	const { email } = await signUp(page)
	const target = uniqueEmail('moved')
	await page.goto('/settings')
	await page.getByLabel('New email address').fill(target)
	await page.getByRole('button', { name: 'Change email address' }).click()
	const status = page.getByRole('status').filter({ hasText: 'not confirmed yet' })
	await expect(status).toContainText(`Change to ${target} not confirmed yet`)
	await expect(status).toContainText(`${email}: waiting for its link`)
	await expect(status).toContainText(`${target}: waiting for its link`)

	// the current address's link: GoTrue's message, the address stays
	await page.goto((await latestMail(email)).link!)
	await page.waitForURL('**/settings')
	await expect(
		page.getByText(
			'Confirmation link accepted. Please proceed to confirm link sent to the other email',
		),
	).toBeVisible()
	await expect(status).toContainText(`${email}: confirmed`)
	await expect(status).toContainText(`${target}: waiting for its link`)

	// the new address's link switches it
	await page.goto((await latestMail(target)).link!)
	await page.waitForURL('**/settings')
	await expect(page.getByText('Email address changed.')).toBeVisible()
	await expect(page.getByText(`You sign in with ${target}.`)).toBeVisible()
	await expect(status).toHaveCount(0)

	await signOut(page)
	await signIn(page, target)
	await page.waitForURL((url) => url.pathname !== '/signin')
	await page.goto('/settings')
	await expect(page.getByText(`Signed in as ${target}`)).toBeVisible()
})
