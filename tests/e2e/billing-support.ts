import { expect, type Page } from '@playwright/test'
import { withDatabase } from './support.ts'

export const PLANS = ['Monthly Starter', 'Monthly Unlimited', 'Yearly Starter', 'Yearly Unlimited']

/**
 * From /subscription: choose a plan and pay for it on the test-payment page. The account's
 * onboarding (/onboarding, shown after the first subscription) counts as done.
 */
export async function subscribeTo(page: Page, plan: string, price: string) {
	await page.goto('/settings')
	const signedInAs = (await page.getByText(/^Signed in as /).textContent()) ?? ''
	await markOnboarded(signedInAs.replace(/^Signed in as /, '').trim())
	await page.goto('/subscription')
	await page.getByRole('button', { name: `Subscribe to ${plan}` }).click()
	await expect(page).toHaveURL(/\/test-payment\/[0-9a-f-]{36}$/)
	await expect(page.getByTestId('test-mode')).toBeVisible()
	await page.getByRole('button', { name: `Pay ${price} (test)` }).click()
}

/** Makes `memberEmail` an active team member of `ownerEmail`'s account, with `role`. */
export async function joinTeam(ownerEmail: string, memberEmail: string, role: 'admin' | 'editor') {
	await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string; email: string }>(
			'select id, email from auth.users where email = any($1)',
			[[ownerEmail, memberEmail]],
		)
		const owner = rows.find((r) => r.email === ownerEmail)!
		const member = rows.find((r) => r.email === memberEmail)!
		await client.query(
			`insert into team_members (user_id, email, role, member_user_id, status)
			values ($1, $2, $3, $4, 'active')`,
			[owner.id, memberEmail, role, member.id],
		)
		await client.query('update profiles set primary_user_id = $1 where user_id = $2', [
			owner.id,
			member.id,
		])
	})
}

/** The page fits the viewport: nothing sticks out to the right. */
export async function expectFitsWidth(page: Page, width: number, selector: string) {
	for (const box of await page.locator(selector).all()) {
		const rect = await box.boundingBox()
		expect(rect, selector).not.toBeNull()
		expect(rect!.x + rect!.width).toBeLessThanOrEqual(width)
	}
}

/** The account's onboarding (shown after the first subscription) counts as done. */
export async function markOnboarded(email: string) {
	await withDatabase((db) =>
		db.query(
			`insert into onboarding (user_id, completed_at)
			select id, now() from auth.users where email = $1
			on conflict (user_id) do nothing`,
			[email],
		),
	)
}
