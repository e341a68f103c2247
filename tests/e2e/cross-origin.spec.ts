import { expect, test } from '@playwright/test'
import { signedUp, signIn, signOut, signUp } from './support.ts'

// Issue 14: a page on another origin cannot make the signed-in browser change anything, and
// a redirect target never leads off the site (decision 0022).

// Another port on localhost: the same site, so the browser sends the SameSite=Lax session
// cookies along; only the origin check stands between this page and the app. Playwright
// answers for it; nothing listens there.
const EVIL = 'http://localhost:4999/'

test('a form on another origin gets 403 and the person stays signed in', async ({
	page,
	baseURL,
}) => {
	await signUp(page)
	await page.route(EVIL, (route) =>
		route.fulfill({
			contentType: 'text/html',
			body: `<!doctype html><title>Prize</title>
				<form method="post" action="${baseURL}/signout"><button>Claim your prize</button></form>
				<form method="post" action="${baseURL}/consent">
					<input type="hidden" name="consent" value="granted">
					<input type="hidden" name="redirectTo" value="/">
					<button>Accept</button>
				</form>`,
		}),
	)
	for (const button of ['Claim your prize', 'Accept']) {
		await page.goto(EVIL)
		const answer = page.waitForResponse((r) => r.request().method() === 'POST')
		await page.getByRole('button', { name: button }).click()
		expect((await answer).status(), button).toBe(403)
		await expect(page.getByText('this request came from another site')).toBeVisible()
	}
	const cookies = await page.context().cookies(baseURL)
	expect(cookies.map((c) => c.name)).not.toContain('ls_consent')
	await page.goto('/settings')
	await expect(page).toHaveURL(/\/settings$/)
	// the app's own forms still go through
	await signOut(page)
})

test('a sign-in link that names another site lands on this one', async ({ page, baseURL }) => {
	const { email } = await signedUp(page)
	await signOut(page)
	// A tab that browsers drop turns "/\t/evil.example" into "//evil.example"; it used to be a 500.
	await page.goto(`/signin?redirectTo=${encodeURIComponent('/\t/evil.example')}`)
	await signIn(page, email)
	await page.waitForURL((url) => url.pathname !== '/signin')
	expect(new URL(page.url()).origin).toBe(baseURL)
})
