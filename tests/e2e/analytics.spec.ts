import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test, type Browser, type BrowserContext } from '@playwright/test'
import type { CapturedEvent, CollectorRequest } from '../fakes/posthog/server.ts'
import { startKeyedServer, type KeyedServer } from './keyed-server.ts'
import { PASSWORD, uniqueEmail } from './support.ts'

// One server with POSTHOG_KEY for the whole file (tests/e2e/keyed-server.ts), driven from
// the js project; JavaScript-off visitors get their own contexts.
test.describe.configure({ mode: 'serial', timeout: 60_000 })

let server: KeyedServer

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'runs once, from the js project')

// eslint-disable-next-line no-empty-pattern -- Playwright wants a pattern before testInfo
test.beforeAll(async ({}, testInfo) => {
	// one keyed server per run: the no-js project does not start a second one on the same port
	test.skip(testInfo.project.name !== 'js', 'runs once, from the js project')
	test.setTimeout(180_000)
	server = await startKeyedServer()
})

test.afterAll(async () => {
	await server?.stop()
})

test.beforeEach(async () => {
	await fetch(`${server.posthogURL}/_events`, { method: 'DELETE' })
})

async function events(name?: string): Promise<CapturedEvent[]> {
	const query = name ? `?event=${encodeURIComponent(name)}` : ''
	return (await fetch(`${server.posthogURL}/_events${query}`)).json() as Promise<CapturedEvent[]>
}

/**
 * What the collector got, but from no other test's browser: a context closed at the end of the
 * test before may still send its last events (a page-leave beacon) after this test began.
 */
async function collectorRequests(context: BrowserContext): Promise<string[]> {
	const own = contextMarks.get(context)!
	const all = (await (await fetch(`${server.posthogURL}/_requests`)).json()) as CollectorRequest[]
	return all
		.filter(({ userAgent }) => !userAgent.includes(CONTEXT_MARK) || userAgent.endsWith(own))
		.map(({ request }) => request)
}

const CONTEXT_MARK = 'e2e-context/'
const contextMarks = new WeakMap<BrowserContext, string>()
let contexts = 0

async function newContext(
	browser: Browser,
	options: { javaScriptEnabled?: boolean; consent?: 'granted' | 'denied' } = {},
): Promise<BrowserContext> {
	// each context's requests are told apart by the end of its User-Agent
	const mark = `${CONTEXT_MARK}${++contexts}`
	const context = await browser.newContext({
		baseURL: server.baseURL,
		javaScriptEnabled: options.javaScriptEnabled ?? true,
		// posthog-js drops events from bots (navigator.webdriver, HeadlessChrome): look human
		userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 ${mark}`,
	})
	contextMarks.set(context, mark)
	await context.addInitScript(() => {
		Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false })
		Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined })
	})
	if (options.consent) {
		await context.addCookies([{ name: 'ls_consent', value: options.consent, url: server.baseURL }])
	}
	return context
}

test('nothing is sent before consent; the banner choice starts page views', async ({ browser }) => {
	const context = await newContext(browser)
	const page = await context.newPage()
	await page.goto('/signin')
	const banner = page.getByTestId('consent-banner')
	await expect(banner).toBeVisible()
	// the page's scripts have run long enough to poll the build: still nothing sent
	await page.waitForResponse((response) => response.url().endsWith('/build-version'))
	expect(await collectorRequests(context)).toEqual([])

	await banner.getByRole('button', { name: 'Allow analytics' }).click()
	await expect(banner).toBeHidden()
	await expect.poll(async () => (await events('$pageview')).length).toBe(1)
	const [first] = await events('$pageview')
	expect(first!.properties).toMatchObject({ page: 'signin' })
	expect(first!.properties.$current_url).toBe(`${server.baseURL}/signin`)
	expect(first!.api_key ?? first!.properties.token).toBe('phc_e2e_test_key')

	// the choice is kept for 365 days
	const cookie = (await context.cookies()).find((c) => c.name === 'ls_consent')!
	expect(cookie.value).toBe('granted')
	expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(364 * 86_400_000)

	// a client-side navigation: one more page view, with the new page
	await page
		.getByRole('link', { name: /create an account|sign up/i })
		.first()
		.click()
	await expect(page).toHaveURL(/\/signup$/)
	await expect.poll(async () => (await events('$pageview')).length).toBe(2)
	const second = (await events('$pageview'))[1]!
	expect(second.properties).toMatchObject({
		page: 'signup',
		$current_url: `${server.baseURL}/signup`,
	})
	await context.close()
})

test('declining sends nothing, ever', async ({ browser }) => {
	const context = await newContext(browser)
	const page = await context.newPage()
	await page.goto('/signin')
	await page.getByRole('button', { name: 'Decline' }).click()
	await expect(page.getByTestId('consent-banner')).toBeHidden()
	await page.goto('/signup')
	await page.waitForResponse((response) => response.url().endsWith('/build-version'))
	expect(await collectorRequests(context)).toEqual([])
	await context.close()
})

test('identify on user load with the listed properties; reset on sign-out', async ({ browser }) => {
	const context = await newContext(browser, { consent: 'granted' })
	const page = await context.newPage()
	const email = uniqueEmail('analytics')
	await page.goto('/signup')
	await page.getByLabel('Your name').fill('Ada Lovelace')
	await page.getByLabel('Work email').fill(email)
	await page.getByLabel('Password').fill(PASSWORD)
	await page.getByRole('button', { name: 'Create account' }).click()
	await page.waitForURL((url) => url.pathname !== '/signup')

	await expect.poll(async () => (await events('$identify')).length).toBeGreaterThan(0)
	const identify = (await events('$identify'))[0]!
	const userId = identify.distinct_id!
	expect(userId).toMatch(/^[0-9a-f-]{36}$/)
	const set = identify.$set ?? (identify.properties.$set as Record<string, unknown>)
	expect(set).toMatchObject({
		email,
		subscription_tier: 'none',
		domain_count: 0,
		active_domain_count: 0,
		days_since_login: 0,
	})
	expect(Date.parse(String(set.signup_date))).toBeGreaterThan(Date.now() - 120_000)
	expect(Date.parse(String(set.last_login_date))).toBeGreaterThan(Date.now() - 120_000)
	// the page views after sign-up belong to the user
	await expect
		.poll(async () => (await events('$pageview')).some((e) => e.distinct_id === userId))
		.toBe(true)

	// sign out: a fresh anonymous identity for what follows
	await page.locator('summary', { hasText: '@' }).first().click()
	await page.getByRole('button', { name: 'Sign out' }).click()
	await page.waitForURL('**/signin')
	await expect
		.poll(async () => {
			const views = await events('$pageview')
			const last = views[views.length - 1]
			return last?.properties.page === 'signin' && last.distinct_id !== userId
		})
		.toBe(true)
	await context.close()
})

test('without JavaScript: the consent form, then one server-side page view per page', async ({
	browser,
}) => {
	const context = await newContext(browser, { javaScriptEnabled: false })
	const page = await context.newPage()
	await page.goto('/signin')
	// a page without scripts can only be counted by the server; none before consent
	// (a late $pageleave beacon from the previous test's closed page may still arrive)
	const serverSide = async () =>
		(await events()).filter((e) => e.properties?.$lib === 'posthog-node')
	expect(await serverSide()).toEqual([])
	await page.getByRole('button', { name: 'Allow analytics' }).click()
	await expect(page).toHaveURL(/\/signin$/)
	await expect(page.getByTestId('consent-banner')).toHaveCount(0)
	await expect.poll(async () => (await events('$pageview')).length).toBe(1)
	const [view] = await events('$pageview')
	expect(view!.properties).toMatchObject({
		page: 'signin',
		$current_url: `${server.baseURL}/signin`,
		$lib: 'posthog-node',
	})
	await page.goto('/signup')
	await expect.poll(async () => (await events('$pageview')).length).toBe(2)
	await context.close()

	// with JavaScript the <noscript> image is not loaded: a page is counted once
	await fetch(`${server.posthogURL}/_events`, { method: 'DELETE' })
	const js = await newContext(browser, { consent: 'granted' })
	const jsPage = await js.newPage()
	await jsPage.goto('/signin')
	await expect.poll(async () => (await events('$pageview')).length).toBe(1)
	await jsPage.waitForResponse((response) => response.url().endsWith('/build-version'))
	const views = await events('$pageview')
	expect(views).toHaveLength(1)
	expect(views[0]!.properties.$lib).toBe('web')
	await js.close()
})

test('a new build on the server offers a reload', async ({ browser }) => {
	const context = await newContext(browser, { consent: 'denied' })
	const page = await context.newPage()
	await page.goto('/signin')
	const versionFile = path.join(server.buildDir, 'client', 'version.json')
	const initial = await (await fetch(`${server.baseURL}/build-version`)).json()
	expect(initial.id).toEqual(expect.any(String))
	// a poll that found the page's own build offers nothing
	await page.waitForResponse((response) => response.url().endsWith('/build-version'))
	await expect(page.getByText('A new version is available.')).toHaveCount(0)
	writeFileSync(versionFile, JSON.stringify({ id: `next-${Date.now()}` }))
	const toast = page.getByText('A new version is available.')
	await expect(toast).toBeVisible()
	const reloaded = page.waitForEvent('load')
	await page.getByRole('button', { name: 'Reload' }).click()
	await reloaded
	// the reloaded page has the new id: its next poll offers no reload
	await page.waitForResponse((response) => response.url().endsWith('/build-version'))
	await expect(toast).toHaveCount(0)
	await context.close()
})
