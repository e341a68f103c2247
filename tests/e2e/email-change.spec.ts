import { expect, test } from '@playwright/test'
import { latestMail } from './mail.ts'
import { signedUp, signIn, signOut, uniqueEmail } from './support.ts'

test('email change: confirmed from both addresses, then signed in with the new one @no-js', async ({
	page,
}) => {
	// one flow of about fifteen steps: on a busy machine longer than one page's 60 s
	test.setTimeout(180_000)
	const { email } = await signedUp(page)
	const target = uniqueEmail('moved')
	await page.goto('/settings')
	await page.getByLabel('New email address').fill(target)
	await page.getByRole('button', { name: 'Change email address' }).click()
	const status = page.getByRole('status').filter({ hasText: 'not confirmed yet' })
	await expect(status).toContainText(`Change to ${target} not confirmed yet`)
	await expect(status).toContainText(`${email}: waiting for its link`)
	await expect(status).toContainText(`${target}: waiting for its link`)

	// the current address's link: said in the app's words (not GoTrue's), the address stays
	await page.goto((await latestMail(email)).link!)
	await page.waitForURL('**/settings')
	await expect(
		page.getByText(
			'That worked. To finish changing your email address, also confirm from the other address',
		),
	).toBeVisible()
	await expect(page.getByText('Confirmation link accepted.')).toHaveCount(0)
	await expect(status).toContainText(`${email}: confirmed`)
	await expect(status).toContainText(`${target}: waiting for its link`)

	// the new address's mail also offers a code: this screen takes it, and it switches the address
	const toNew = await latestMail(target)
	expect(toNew.code).toMatch(/^\d{6}$/)
	await page.getByLabel('Code from the email').fill(toNew.code!)
	await page.getByRole('button', { name: 'Confirm with code' }).click()
	await expect(page.getByText('Email address changed.')).toBeVisible()
	await expect(page.getByText(`You sign in with ${target}.`)).toBeVisible()
	await expect(status).toHaveCount(0)

	await signOut(page)
	await signIn(page, target)
	await page.waitForURL((url) => url.pathname !== '/signin')
	await page.goto('/settings')
	await expect(page.getByText(`Signed in as ${target}`)).toBeVisible()
})
