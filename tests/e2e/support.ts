import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { expect, type Page, type TestInfo } from '@playwright/test'
import type Axe from 'axe-core'
import pg from 'pg'

export const PASSWORD = 'correct-horse-7'

export function uniqueEmail(prefix = 'user') {
	return `${prefix}-${randomUUID().slice(0, 8)}@example.com`
}

export function jsEnabled(testInfo: TestInfo) {
	return testInfo.project.use.javaScriptEnabled !== false
}

export async function signUp(
	page: Page,
	options: { email?: string; password?: string; name?: string } = {},
) {
	const email = options.email ?? uniqueEmail()
	await page.goto('/signup')
	await page.getByLabel('Your name').fill(options.name ?? 'Ada Lovelace')
	await page.getByLabel('Work email').fill(email)
	await page.getByLabel('Password').fill(options.password ?? PASSWORD)
	await page.getByRole('button', { name: 'Create account' }).click()
	await page.waitForURL((url) => url.pathname !== '/signup')
	return { email, password: options.password ?? PASSWORD }
}

/**
 * A new account, signed in in the page's browser context by posting the sign-up form
 * (the same action, without rendering the form and the pages after it: for tests whose
 * subject comes after sign-up; the form itself is walked in auth.spec.ts). The page is left
 * where it was: go to a page next.
 */
export async function signedUp(page: Page, options: { email?: string; name?: string } = {}) {
	const email = options.email ?? uniqueEmail()
	const response = await page.request.post('/signup', {
		form: { fullName: options.name ?? 'Ada Lovelace', email, password: PASSWORD },
		maxRedirects: 0,
	})
	expect([302, 303], await response.text()).toContain(response.status())
	expect(response.headers().location).toBe('/')
	// the welcome toast is for the page the form lands on, which this skips
	await page.context().clearCookies({ name: 'ls_toast' })
	return { email, password: PASSWORD }
}

export async function signIn(page: Page, email: string, password = PASSWORD) {
	await page.getByLabel('Email', { exact: true }).fill(email)
	await page.getByLabel('Password', { exact: true }).fill(password)
	await page.getByRole('button', { name: 'Sign in' }).click()
}

export async function signOut(page: Page) {
	await page.goto('/settings')
	await page.locator('summary', { hasText: '@' }).or(page.getByText('Account menu')).first().click()
	await page.getByRole('button', { name: 'Sign out' }).click()
	await page.waitForURL('**/signin')
	await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
}

/**
 * The newest mail to `email`, and the first link in it, read from the e2e server's mailbox table
 * (/dev/mailbox is for signed-in platform admins only). `page` is unused, kept for the callers.
 */
export async function latestMailLink(_page: Page, email: string) {
	let link: string | undefined
	await expect
		.poll(async () => {
			const { rows } = await withDatabase((client) =>
				client.query<{ text_body: string }>(
					'select text_body from mailbox where lower(to_address) = lower($1) order by id desc limit 1',
					[email],
				),
			)
			link = rows[0] ? /(https?:\/\/[^\s<>"]+)/.exec(rows[0].text_body)?.[1] : undefined
			return link
		})
		.toBeTruthy()
	return link!
}

// axe-core run in the page itself: @axe-core/playwright's analyze() opens a new page for every
// scan to merge frames' results, which took tens of seconds a scan on a busy machine (our pages
// have no frames)
const axeSource = readFileSync(
	createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
	'utf8',
)

/**
 * The page as it stays: hydrated, with the parts that load after hydration in place (the
 * toasts' region, sonner's own chunk) and nothing marked busy (a phone field whose country
 * combobox is still loading or whose country is still being guessed). A condition, not a
 * pause: it returns as soon as it holds. Call it once the page has loaded (`page.goto` waits for
 * the load event, so the page's inline scripts have run by then).
 */
export async function pageSettled(page: Page) {
	await page.waitForFunction(
		() =>
			// without JavaScript the page's inline scripts never ran: the page as served is final
			!('__reactRouterContext' in window) ||
			(document.querySelector('section[aria-label^="Notifications"]') !== null &&
				document.querySelector('[aria-busy="true"]') === null),
	)
}

export async function expectNoSeriousA11yViolations(page: Page) {
	// through the DevTools protocol, so the page's Content-Security-Policy does not stop it
	if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
	const violations = await page.evaluate(async () => {
		const axe = (window as unknown as { axe: typeof Axe }).axe
		const results = await axe.run(document, { resultTypes: ['violations'] })
		return results.violations
			.filter((v) => v.impact === 'serious' || v.impact === 'critical')
			.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
	})
	expect(violations, `axe on ${page.url()}`).toEqual([])
}

/** The e2e server's own database (the port is fixed in playwright.config.ts), or a keyed server's. */
export async function withDatabase<T>(
	work: (client: pg.Client) => Promise<T>,
	port = Number(process.env.E2E_DB_PORT ?? 25399),
) {
	const client = new pg.Client({
		connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
	})
	await client.connect()
	try {
		return await work(client)
	} finally {
		await client.end()
	}
}

/** A lead of the list (its page's id), for screens that show one lead. */
export async function firstLeadOf(listId: string) {
	const { rows } = await withDatabase((client) =>
		client.query<{ id: string }>(`select id from leads where list_id = $1 order by id limit 1`, [
			listId,
		]),
	)
	return rows[0]!.id
}
