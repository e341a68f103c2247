import { expect, test } from '@playwright/test'
import { jsEnabled, pageSettled } from './support.ts'

test('an unmatched path answers 404 with the 404 screen @no-js', async ({ page }, testInfo) => {
	const response = await page.goto('/no/such/page')
	expect(response?.status()).toBe(404)
	await expect(page).toHaveTitle('404 Not Found | Leadsmith')
	await expect(page.getByRole('heading', { level: 1 })).toHaveText("This Page Doesn't Exist!")
	const home = page.getByRole('link', { name: 'Go Home' })
	await expect(home).toHaveAttribute('href', '/')

	if (jsEnabled(testInfo)) {
		// 20 falling boxes in the physics world, under gravity 0.5
		await expect
			.poll(() => page.evaluate(() => (window as any).__notFoundPhysics?.bodyCount))
			.toBe(20)
		expect(await page.evaluate(() => (window as any).__notFoundPhysics.gravity)).toBe(0.5)
	}
	await home.click()
	await expect(page).toHaveURL(/\/signin$/)
})

test('an unhandled server error answers 500 with the same screen', async ({ page }) => {
	const response = await page.goto('/dev/error')
	expect(response?.status()).toBe(500)
	await expect(page).toHaveTitle('404 Not Found | Leadsmith')
	await expect(page.getByRole('heading', { level: 1 })).toHaveText("This Page Doesn't Exist!")
	// no details leak to the page
	await expect(page.getByText('Forced failure')).toHaveCount(0)
})

test('matter-js is loaded only by the 404 screen @no-js', async ({ page }, testInfo) => {
	test.skip(!jsEnabled(testInfo), 'scripts only')
	const scripts: Promise<string>[] = []
	page.on('response', (response) => {
		if (response.url().endsWith('.js')) scripts.push(response.text().catch(() => ''))
	})
	await page.goto('/signin')
	// hydrated, and the chunks loaded after hydration (sonner's) are in
	await pageSettled(page)
	const texts = await Promise.all(scripts)
	expect(texts.length).toBeGreaterThan(0)
	const isMatter = (s: string) => s.includes('matter-js') || s.includes('Matter.Engine')
	expect(texts.some(isMatter)).toBe(false)
	// and the 404 screen does load it: the check above would see it
	await page.goto('/no-such-page')
	await expect
		.poll(async () => (await Promise.all(scripts)).some(isMatter), { timeout: 30_000 })
		.toBe(true)
})
