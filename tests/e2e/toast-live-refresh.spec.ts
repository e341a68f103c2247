// Decision 0107: a page that refreshes itself while a job runs must not take the flash toast
// of a form's redirect before the redirected page reads it.
import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, pageSettled, withDatabase } from './support.ts'

test.describe.configure({ timeout: 90_000 })

test('a toast after a redirect shows on a page that refreshes itself @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	// a search still running (the page refreshes itself every 2 s), and a finished list to delete
	await withDatabase((client) =>
		client.query(
			`insert into processing_list (user_id, name, source_type, status, progress, found)
			 select id, name, 'apollo', status, progress, 0 from auth.users,
				(values ('Still searching', 1, 10), ('Old targets', 2, 100)) as l(name, status, progress)
			 where email = $1`,
			[email],
		),
	)
	await page.goto('/scrape')
	await pageSettled(page)
	if (jsEnabled(testInfo)) {
		// The race made certain: the redirected page's data is answered by the server at once (the
		// toast read and its cookie cleared), but reaches the page only 3 s later, as over a slow
		// connection. The page's refresh every 2 s falls within; the old code restarted the load
		// then, and the restarted load found the toast gone.
		let held = false
		await page.route(/\/scrape\.data/, async (route) => {
			const flash = (await page.context().cookies()).some((c) => c.name === 'ls_toast')
			if (route.request().method() !== 'GET' || held || !flash) return route.fallback()
			held = true
			const response = await route.fetch()
			await new Promise((resolve) => setTimeout(resolve, 3000))
			// the page may have given up on this answer (the old code's restart)
			await route.fulfill({ response }).catch(() => {})
		})
	}
	const row = page.getByRole('row', { name: /Old targets/ })
	await row.locator('summary', { hasText: 'Delete' }).click()
	await row.getByRole('button', { name: 'Delete “Old targets”' }).click()
	await expect(
		page
			.locator('[data-sonner-toast]')
			.or(page.getByTestId('flash'))
			.filter({ hasText: '“Old targets” deleted' }),
	).toBeVisible({ timeout: 10_000 })
	await expect(page.getByRole('row', { name: /Old targets/ })).toHaveCount(0)
})
