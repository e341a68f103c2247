import { expect, test, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { pageSettled } from './support.ts'

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'browser-side loading rules')

test('a lazy chunk that is gone reloads the page once, then shows the 404 screen', async ({
	page,
}) => {
	await subscribedAccount(page, { onboarded: false })
	// as after a deploy: the combobox's chunk is missing on the server
	await page.route('**/assets/country-combobox-*.js', (route) =>
		route.fulfill({ status: 404, body: 'Not Found' }),
	)
	let documentLoads = 0
	page.on('request', (request) => {
		if (request.resourceType() === 'document' && request.url().endsWith('/onboarding'))
			documentLoads++
	})
	await page.goto('/onboarding')
	await expect(page.getByRole('heading', { name: "This Page Doesn't Exist!" })).toBeVisible({
		timeout: 15_000,
	})
	await expect(page).toHaveTitle(/^404 Not Found/)
	expect(documentLoads).toBe(2)
	const guard = await page.evaluate(() => sessionStorage.getItem('ls_chunk_reload'))
	expect(Object.keys(JSON.parse(guard!))).toEqual(['/onboarding'])

	// 10 s later the guard lets one reload through again (time travels in sessionStorage)
	await page.evaluate(() =>
		sessionStorage.setItem(
			'ls_chunk_reload',
			JSON.stringify({ '/onboarding': Date.now() - 10_001 }),
		),
	)
	await page.unroute('**/assets/country-combobox-*.js')
	await page.goto('/onboarding')
	await expect(page.getByRole('combobox', { name: 'Country' })).toBeVisible()
})

async function hoverNavigation(page: Page) {
	const links = page.getByRole('navigation', { name: 'Main' }).first().getByRole('link')
	const count = await links.count()
	for (let i = 0; i < count; i++) await links.nth(i).hover()
	return count
}

test('intent prefetch preloads at most 4 route modules at once', async ({ page }) => {
	await page.setViewportSize({ width: 1280, height: 900 })
	await subscribedAccount(page)
	await page.goto('/settings')
	// slow module responses, so preloads overlap
	await page.route('**/assets/*.js', async (route) => {
		if (route.request().resourceType() === 'script' || route.request().resourceType() === 'other') {
			await new Promise((resolve) => setTimeout(resolve, 400))
		}
		await route.continue()
	})
	const links = await hoverNavigation(page)
	expect(links).toBeGreaterThan(5)
	const stats = () =>
		page.evaluate(
			() =>
				(window as unknown as { __preloadStats?: { peak: number; started: number } })
					.__preloadStats,
		)
	await expect.poll(async () => (await stats())?.started ?? 0).toBeGreaterThan(4)
	expect((await stats())!.peak).toBeLessThanOrEqual(4)
	expect((await stats())!.peak).toBe(4)
	await expect(page.locator('link[rel="prefetch"]')).toHaveCount(0)
})

for (const connection of [
	{ saveData: true, effectiveType: '4g' },
	{ saveData: false, effectiveType: '2g' },
]) {
	test(`no prefetch with saveData ${connection.saveData}, ${connection.effectiveType}`, async ({
		page,
	}) => {
		await page.setViewportSize({ width: 1280, height: 900 })
		await page.addInitScript((value) => {
			Object.defineProperty(Navigator.prototype, 'connection', { get: () => value })
		}, connection)
		await subscribedAccount(page)
		await page.goto('/settings')
		await pageSettled(page)
		const links = await hoverNavigation(page)
		const stats = () =>
			page.evaluate(
				() =>
					(window as unknown as { __preloadStats?: { started: number; declined: number } })
						.__preloadStats,
			)
		// every hovered link was weighed and declined, none preloaded
		await expect.poll(async () => (await stats())?.declined ?? 0).toBe(links)
		expect((await stats())!.started).toBe(0)
	})
}

test('without POSTHOG_KEY nothing of PostHog loads, renders or sends', async ({ page }) => {
	const requests: string[] = []
	page.on('request', (request) => requests.push(request.url()))
	await subscribedAccount(page)
	await page.goto('/settings')
	await page.getByRole('link', { name: 'Create leads' }).first().click()
	await expect(page).toHaveURL(/\/create-leads$/)
	await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create leads')
	// the new page's effects have run, which is where PostHog would be imported
	await pageSettled(page)
	await expect(page.getByTestId('consent-banner')).toHaveCount(0)
	await expect(page.locator('noscript')).toHaveCount(0)
	// the phone field's IP lookup (Company details on /settings) is the only outside call
	const outside = requests.filter(
		(url) => !url.startsWith(new URL(page.url()).origin) && !url.includes('/ip-country/'),
	)
	expect(outside).toEqual([])
	expect(requests.filter((url) => /posthog|\/analytics\/pv/.test(url))).toEqual([])
})
