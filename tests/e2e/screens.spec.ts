import { expect, test, type Browser, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../../app/auth-service/totp.server.ts'
import { screens } from '../../app/routes.ts'
import { accountOf, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { seedCompanyList, seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import {
	expectNoSeriousA11yViolations,
	firstLeadOf,
	jsEnabled,
	pageSettled,
	PASSWORD,
	signedUp,
	signIn,
	signOut,
	uniqueEmail,
	withDatabase,
} from './support.ts'

// Every screen of the route table, loaded once with JavaScript (project js) and once without
// (project no-js), each checked at 390 and 1280 px: it answers, shows its heading, axe finds no
// serious violation, the page never scrolls sideways and no text is cut off by a box too small
// for it (issue 16, point 8; decisions 0085, 0088).
//
// To add a screen: one line in SCREENS, in the group whose account has what the screen shows
// (a path that needs a seeded id is `(ids) => ...`; the group's test below makes the ids). The
// last test fails for a screen of app/routes.ts that is not listed.

const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

/** What a group's test made, for the paths and checks of its screens. */
type Ids = Record<string, string>
type Group = 'public' | 'two-factor' | 'account' | 'lists' | 'onboarding' | 'sending' | 'admin'
type Visit = {
	group: Group
	/** its name in app/routes.ts ('not-found': the 404 page of an unknown path) */
	screen: string
	path: string | ((ids: Ids) => string)
	/** what the screen answers when it is not 200 (an invitation that does not exist: 404) */
	status?: number
	/** a state of the screen other than its first look, named for the messages */
	state?: string
	/** what the page must show before it is checked, with and without JavaScript */
	shows?: (page: Page, ids: Ids) => Promise<void>
	/** steps on the loaded page that reach `state` (forms post without JavaScript too) */
	act?: (page: Page, ids: Ids) => Promise<void>
}

// prettier-ignore
const SCREENS: Visit[] = [
	{ group: 'public', screen: 'signin', path: '/signin' },
	{ group: 'public', screen: 'signup', path: '/signup' },
	{ group: 'public', screen: 'forgot-password', path: '/forgot-password' },
	{ group: 'public', screen: 'reset-password', path: '/reset-password?email=someone%40example.com' },
	{ group: 'public', screen: 'admin-login', path: '/admin-login' },
	{ group: 'public', screen: 'accept-invitation', path: '/accept-invitation?token=not-a-token', status: 404 },
	{ group: 'public', screen: 'not-found', path: '/no-such-page', status: 404 },
	{ group: 'two-factor', screen: 'signin-verify', path: '/signin/verify' },
	{ group: 'account', screen: 'index', path: '/' },
	{ group: 'account', screen: 'settings', path: '/settings' },
	{ group: 'account', screen: 'subscription', path: '/subscription' },
	{ group: 'account', screen: 'purchase', path: '/purchase' },
	{ group: 'account', screen: 'test-payment', path: (ids) => ids.testPayment! },
	{ group: 'account', screen: 'team-members', path: '/team-members' },
	{ group: 'account', screen: 'workspaces', path: '/workspaces' },
	{ group: 'account', screen: 'attach-workspace', path: (ids) => `/attach-workspace?type=list&id=${ids.listId}&redirectTo=%2Ffile-list` },
	{ group: 'account', screen: 'api-keys', path: '/api-keys' },
	{ group: 'account', screen: 'notifications', path: '/notifications' },
	{ group: 'account', screen: 'developers', path: '/developers' },
	{ group: 'account', screen: 'developers-webhooks', path: '/developers/webhooks' },
	{ group: 'account', screen: 'developers-api', path: '/developers/api' },
	{ group: 'account', screen: 'do-not-contact', path: '/do-not-contact' },
	{ group: 'lists', screen: 'create-leads', path: '/create-leads' },
	{ group: 'lists', screen: 'create-companies', path: '/create-companies' },
	{ group: 'lists', screen: 'scrape', path: '/scrape' },
	{ group: 'lists', screen: 'file-list', path: '/file-list' },
	{ group: 'lists', screen: 'list', path: (ids) => `/lists/${ids.listId}` },
	{ group: 'lists', screen: 'list-import-report', path: (ids) => `/lists/${ids.listId}/import-report` },
	{ group: 'lists', screen: 'company-list', path: (ids) => `/company-lists/${ids.companyListId}` },
	{ group: 'lists', screen: 'enrich-company-list', path: (ids) => `/company-lists/${ids.companyListId}/enrich` },
	{ group: 'lists', screen: 'emailbison-upload', path: (ids) => `/lists/${ids.listId}/upload` },
	{ group: 'lists', screen: 'uploads', path: '/uploads' },
	{ group: 'lists', screen: 'enrichments', path: '/enrichments' },
	{ group: 'lists', screen: 'enrichments', state: 'editing an enrichment', path: (ids) => `/enrichments?edit=${ids.enrichmentId}`, shows: (p) => expect(p.getByRole('heading', { name: 'Edit AI enrichment “Opener”' })).toBeVisible() },
	{ group: 'lists', screen: 'enrichments', state: 'editing a chain', path: (ids) => `/enrichments?editChain=${ids.chainId}`, shows: (p) => expect(p.getByRole('heading', { name: 'Edit chain “Domains then opener”' })).toBeVisible() },
	{ group: 'lists', screen: 'enrich-list', path: (ids) => `/lists/${ids.listId}/enrich` },
	{ group: 'lists', screen: 'lead', path: (ids) => `/lists/${ids.listId}/leads/${ids.leadId}` },
	{ group: 'lists', screen: 'list-columns', path: (ids) => `/lists/${ids.listId}/columns` },
	{ group: 'lists', screen: 'verify-list', path: (ids) => `/lists/${ids.listId}/verify` },
	{ group: 'lists', screen: 'list-dedupe', path: (ids) => `/lists/${ids.listId}/dedupe` },
	{ group: 'onboarding', screen: 'onboarding', path: '/onboarding' },
	{ group: 'sending', screen: 'domains', path: '/domains' },
	{ group: 'sending', screen: 'domains-import', path: '/domains/import' },
	{ group: 'sending', screen: 'domain-subscriptions', path: '/domain-subscriptions', shows: (p, ids) => expect(p.locator(`tr[data-domain="${ids.domain}"]`)).toContainText('Renews') },
	{ group: 'sending', screen: 'url-forward', path: '/url-forward' },
	{ group: 'sending', screen: 'ordering-inboxes', path: '/ordering-inboxes' },
	{ group: 'sending', screen: 'ordering-inboxes', state: 'with a quote', path: '/ordering-inboxes', act: getAQuote },
	{ group: 'sending', screen: 'checkout', path: (ids) => `/checkout?domain=${ids.unsubscribedId}` },
	{ group: 'sending', screen: 'inboxes', path: '/inboxes', shows: (p, ids) => expect(p.locator(`tr[data-inbox="grace@${ids.domain}"]`)).toContainText('Ends') },
	{ group: 'sending', screen: 'domains-health', path: '/domains/health' },
	{ group: 'sending', screen: 'domain-health', path: (ids) => `/domains/${ids.domainId}/health` },
	{ group: 'admin', screen: 'admin-dashboard', path: '/admin-dashboard' },
	{ group: 'admin', screen: 'admin-user', path: (ids) => `/admin-dashboard/users/${ids.userId}` },
	{ group: 'admin', screen: 'admin-plans', path: '/admin-dashboard/plans' },
	{ group: 'admin', screen: 'admin-jobs', path: '/admin-dashboard/jobs' },
	{ group: 'admin', screen: 'admin-inbox-orders', path: '/admin-dashboard/inbox-orders' },
	{ group: 'admin', screen: 'admin-templates', path: '/admin-dashboard/templates' },
	{ group: 'admin', screen: 'admin-audit', path: '/admin-dashboard/audit' },
]

/** /ordering-inboxes after asking for a quote for the group's subscribed domain. */
async function getAQuote(page: Page, ids: Ids) {
	await page.getByLabel(ids.domain!).check()
	await page.getByLabel('Inboxes a domain').fill('2')
	await page.getByLabel('Persona names').fill('Alan Turing')
	await page.getByRole('button', { name: 'Get a quote' }).click()
	await expect(page.getByTestId('quote-summary')).toBeVisible()
	await expect(page.getByTestId('orders')).toContainText('delivered')
}

/** What is cut off or sticks out on the page as it is now, described for the failure message. */
function layoutProblems(page: Page) {
	return page.evaluate(() => {
		const problems: string[] = []
		const describe = (el: Element) => {
			const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)
			const id = el.id ? `#${el.id}` : ''
			const testId = el.getAttribute('data-testid')
			return `<${el.tagName.toLowerCase()}${id}${testId ? ` data-testid=${testId}` : ''}> “${text}”`
		}
		const viewport = document.documentElement.clientWidth
		const sideways = document.documentElement.scrollWidth - viewport
		if (sideways > 0) {
			// the outermost boxes that stick out, for the message
			const clipped = (el: Element) => {
				for (let up = el.parentElement; up; up = up.parentElement) {
					if (getComputedStyle(up).overflowX !== 'visible') return true
				}
				return false
			}
			const out = [...document.body.querySelectorAll('*')].filter(
				(el) =>
					el.getBoundingClientRect().right > viewport + 1 &&
					!clipped(el) &&
					!(el.parentElement && el.parentElement.getBoundingClientRect().right > viewport + 1),
			)
			problems.push(
				`the page scrolls sideways by ${sideways} px: ${out.slice(0, 3).map(describe).join(', ')}`,
			)
		}
		for (const el of document.body.querySelectorAll('*')) {
			if (!(el instanceof HTMLElement) || el.closest('[aria-hidden="true"]')) continue
			// a text field scrolls its own value: a long URL in it is not cut off
			if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) continue
			// not shown: display none, hidden, or inside a closed <details>
			if (!el.checkVisibility({ visibilityProperty: true })) continue
			const box = el.getBoundingClientRect()
			// visually hidden text (sr-only) is clipped on purpose
			if (box.width <= 2 || box.height <= 2) continue
			const style = getComputedStyle(el)
			const clips = style.overflowX === 'hidden' || style.overflowX === 'clip'
			// a truncated text that carries its whole text in a title is cut off on purpose
			if (clips && el.scrollWidth > el.clientWidth + 1 && !el.title) {
				problems.push(`${describe(el)} is cut off (${el.scrollWidth} px in ${el.clientWidth} px)`)
			}
		}
		return problems
	})
}

const WIDTHS = [390, 1280]

function named(visit: Visit, path: string) {
	return `${visit.screen}${visit.state ? ` (${visit.state})` : ''} at ${path}`
}

/** As laid out at `width`: nothing sticks out or is cut off, and axe finds nothing serious. */
async function checkAt(page: Page, visit: Visit, path: string, width: number) {
	expect(await layoutProblems(page), `${named(visit, path)}, ${width} px`).toEqual([])
	await expectNoSeriousA11yViolations(page)
}

/** With JavaScript: loaded once at the first width, then resized to the others. */
async function checkWithJs(page: Page, visit: Visit, ids: Ids) {
	const path = typeof visit.path === 'string' ? visit.path : visit.path(ids)
	await page.setViewportSize({ width: WIDTHS[0]!, height: 900 })
	const response = await page.goto(path)
	expect(response?.status(), `${named(visit, path)} answers`).toBe(visit.status ?? 200)
	await visit.act?.(page, ids)
	await expect(page.locator('h1').first()).toBeVisible()
	await visit.shows?.(page, ids)
	// the 404 page of an unknown path has no app layout, so no toasts region to wait for
	if (visit.screen !== 'not-found') await pageSettled(page)
	for (const [i, width] of WIDTHS.entries()) {
		if (i > 0) await page.setViewportSize({ width, height: 900 })
		await checkAt(page, visit, path, width)
	}
}

/**
 * Without JavaScript: the HTML a browser without JavaScript is served (a screen reached by steps,
 * `act`, is walked in the page, which has JavaScript off), its scripts taken out and its
 * <noscript> parts shown, laid out and scanned in `scanner`, a page with JavaScript on at the
 * same URL (so that the styles load as they did): Chromium runs no timer in a page whose
 * JavaScript is off, and axe needs them. The HTML does not depend on the width, only the styles.
 */
async function checkWithoutJs(page: Page, scanner: Page, visit: Visit, ids: Ids) {
	const path = typeof visit.path === 'string' ? visit.path : visit.path(ids)
	let html: string
	let url: string
	if (visit.act) {
		const response = await page.goto(path)
		expect(response?.status(), `${named(visit, path)} answers`).toBe(visit.status ?? 200)
		await visit.act(page, ids)
		html = await page.content()
		url = page.url()
	} else {
		// the page's own cookies; no browser page needed to read what the server sends
		const response = await page.request.get(path)
		expect(response.status(), `${named(visit, path)} answers`).toBe(visit.status ?? 200)
		html = await response.text()
		url = response.url()
	}
	const withoutScripts = html
		.replace(/<script\b[\s\S]*?<\/script>/gi, '')
		.replace(/<\/?noscript>/gi, '')
	await scanner.route(
		(u) => u.href === url,
		(route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: withoutScripts }),
		{ times: 1 },
	)
	for (const [i, width] of WIDTHS.entries()) {
		await scanner.setViewportSize({ width, height: 900 })
		if (i === 0) {
			await scanner.goto(url)
			await expect(scanner.locator('h1').first()).toBeVisible()
			await visit.shows?.(scanner, ids)
		}
		await checkAt(scanner, visit, path, width)
	}
}

/** Every screen of `group` in the page's JavaScript mode. */
async function checkGroup(page: Page, browser: Browser, group: Group, ids: Ids = {}) {
	const visits = SCREENS.filter((v) => v.group === group)
	if (jsEnabled(test.info())) {
		for (const visit of visits) await checkWithJs(page, visit, ids)
		return
	}
	const scannerContext = await browser.newContext({ javaScriptEnabled: true })
	try {
		const scanner = await scannerContext.newPage()
		for (const visit of visits) await checkWithoutJs(page, scanner, visit, ids)
	} finally {
		await scannerContext.close()
	}
}

test.describe('every screen at 390 and 1280 px @no-js', () => {
	// many pages, two widths and an axe scan each, on a busy 2-core machine
	test.describe.configure({ timeout: 300_000 })

	test('signed out, and the 404 page', async ({ page, browser }) => {
		await checkGroup(page, browser, 'public')
	})

	test('the two-factor code screen', async ({ page, browser }) => {
		const { email } = await signedUp(page)
		await page.goto('/settings')
		await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
		const secret = (await page.getByTestId('two-factor-secret').textContent())!.trim()
		await page.getByLabel('Code from the app').fill(totpCode(secret, totpStep(new Date())))
		await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
		await expect(page.getByText('On: signing in asks for a code')).toBeVisible()
		await signOut(page)
		await signIn(page, email)
		await page.waitForURL('**/signin/verify')
		await checkGroup(page, browser, 'two-factor')
	})

	test('account, billing and team screens', async ({ page, browser }) => {
		const { email } = await subscribedAccount(page)
		const { userId, workspaceId } = await accountOf(email)
		const listId = await seedLeadList(email, 'Account screens', 2)
		// two workspaces whose names differ only at the end: the switcher must tell them apart
		await withDatabase(async (client) => {
			await client.query(
				`update workspaces set name = 'Acme Corporation Europe North' where id = $1`,
				[workspaceId],
			)
			await client.query(
				`insert into workspaces (user_id, name) values ($1, 'Acme Corporation Europe South')`,
				[userId],
			)
		})
		await page.goto('/purchase')
		await page.getByRole('button', { name: /^Buy/ }).first().click()
		await expect(page).toHaveURL(/\/test-payment\//)
		const testPayment = new URL(page.url()).pathname
		await checkGroup(page, browser, 'account', { listId, testPayment })
		if (!jsEnabled(test.info())) return

		// the workspace switcher (enhanced with JavaScript) shows the whole name of the current
		// workspace at both widths
		for (const width of [390, 1280]) {
			await page.setViewportSize({ width, height: 900 })
			await page.goto('/settings')
			const room = await page.locator('#workspace-switcher').evaluate((select) => {
				const s = select as HTMLSelectElement
				const style = getComputedStyle(s)
				const probe = document.createElement('span')
				probe.style.font = style.font
				probe.style.whiteSpace = 'pre'
				probe.textContent = s.selectedOptions[0]!.text
				document.body.append(probe)
				const needed = probe.getBoundingClientRect().width
				probe.remove()
				const inner = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
				return { needed, inner, text: probe.textContent }
			})
			expect(room.text).toMatch(/^Acme Corporation Europe (North|South)$/)
			expect(room.needed, `the switcher at ${width} px`).toBeLessThanOrEqual(room.inner + 1)
		}
	})

	test('lists and enrichment screens', async ({ page, browser }) => {
		const { email } = await subscribedAccount(page, { credits: 100 })
		const listId = await seedLeadList(email, 'List screens', 3)
		// as an imported CSV with a refused row leaves it, for its import report
		await withDatabase(async (client) => {
			await client.query(
				`insert into csv_imports (list_id, user_id, file_path, has_header, mapping, bytes_total,
					bytes_done, rows_total, rows_done, imported, invalid)
				select id, user_id, 'done.csv', true, '{}', 100, 100, 4, 4, 3, 1 from processing_list
				where id = $1`,
				[listId],
			)
			await client.query(
				`insert into csv_import_errors (list_id, line, kind, email, message)
				values ($1, 4, 'invalid', 'not-an-email', 'The email address is not valid')`,
				[listId],
			)
		})
		const enrichmentId = await seedEnrichment(email, {
			name: 'Opener',
			prompt: 'Write a one-line opener for {{first_name}} at {{company_name}}',
			outputColumn: 'opener',
		})
		const chainId = await withDatabase(async (client) => {
			const { rows } = await client.query<{ id: string }>(
				`insert into enrichment_chain (user_id, name, steps)
				 select id, 'Domains then opener', $2 from auth.users where email = $1 returning id`,
				[
					email,
					JSON.stringify([
						{ kind: 'company-domain', outputColumn: 'company_domain_guess' },
						{ kind: 'ai', enrichmentId },
					]),
				],
			)
			return rows[0]!.id
		})
		const companyListId = await seedCompanyList(email, 'Company screens', 3, {
			companyName: 'Firm number',
			domainStem: 'firm-number-',
		})
		const leadId = await firstLeadOf(listId)
		await checkGroup(page, browser, 'lists', {
			listId,
			companyListId,
			enrichmentId,
			chainId,
			leadId,
		})
	})

	test('onboarding, for an owner with a plan who has not completed it', async ({
		page,
		browser,
	}) => {
		await subscribedAccount(page, { onboarded: false })
		await checkGroup(page, browser, 'onboarding')
	})

	test('domains, forwarding, inbox ordering and inboxes', async ({ page, browser }) => {
		const { email } = await subscribedAccount(page)
		const domain = uniqueDomain('screens')
		const [domainId] = await subscribedDomains(email, [domain])
		const { userId, workspaceId } = await accountOf(email)
		// a delivered order with a live and a cancelling inbox, and a domain without a subscription
		const unsubscribedId = await withDatabase(async (client) => {
			const { rows: order } = await client.query<{ id: string }>(
				`insert into inbox_orders (user_id, workspace_id, provider, status, inboxes_per_domain,
					domain_ids, total_cents, billing_provider, price_cents, quantity, billing_date, paid_through)
				values ($1, $2, 'google', 2, 2, array[$3::uuid], 600, 'test', 300, 2, now(),
					now() + interval '20 days')
				returning id`,
				[userId, workspaceId, domainId],
			)
			for (const [name, cancelling] of [
				['ada', false],
				['grace', true],
			] as const) {
				await client.query(
					`insert into inboxes (user_id, workspace_id, order_id, domain_id, provider, address,
						first_name, last_name, status, cancel_at_period_end, period_end)
					values ($1, $2, $3, $4, 'google', $5, $6, 'Test', 'active', $7, now() + interval '20 days')`,
					[userId, workspaceId, order[0]!.id, domainId, `${name}@${domain}`, name, cancelling],
				)
			}
			const { rows } = await client.query<{ id: string }>(
				`insert into domains (user_id, workspace_id, name, source) values ($1, $2, $3, 'imported')
				returning id`,
				[userId, workspaceId, uniqueDomain('screens-nosub')],
			)
			return rows[0]!.id
		})
		await checkGroup(page, browser, 'sending', { domain, domainId: domainId!, unsubscribedId })
	})

	test('admin screens', async ({ page, browser }) => {
		// someone to look at, with a plan
		const customer = await browser.newPage()
		const { email } = await subscribedAccount(customer)
		await customer.close()
		const { userId } = await accountOf(email)
		await page.goto('/admin-login')
		await signIn(page, ADMIN.email, ADMIN.password)
		await page.waitForURL('**/admin-dashboard')
		await checkGroup(page, browser, 'admin', { userId })
	})

	test('SCREENS lists every screen of the route table', () => {
		const listed = new Set(SCREENS.map((v) => v.screen).filter((name) => name !== 'not-found'))
		expect([...listed].sort()).toEqual(screens.map((s) => s.name).sort())
	})
})

// States of screens that take a job's run or a toast, with JavaScript.
test.describe('screens in states that take more', () => {
	test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'needs JavaScript')

	/** At 390 and 1280 px (loaded once, then resized): no serious axe violation, and nothing makes the page scroll sideways. */
	async function checkAtBothWidths(page: Page, path: string, ready: (page: Page) => Promise<void>) {
		for (const [i, width] of WIDTHS.entries()) {
			await page.setViewportSize({ width, height: 900 })
			if (i === 0) {
				await page.goto(path)
				await ready(page)
			}
			await expectNoSeriousA11yViolations(page)
			const sideways = await page.evaluate(
				() => document.documentElement.scrollWidth - document.documentElement.clientWidth,
			)
			expect(sideways, `${path} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0)
		}
	}

	test('a success toast is readable (contrast of its text on its tint)', async ({ page }) => {
		await page.emulateMedia({ reducedMotion: 'reduce' }) // no fade: axe reads the final colours
		const response = await page.request.post('/signup', {
			form: { fullName: 'Ada Lovelace', email: uniqueEmail('toast'), password: PASSWORD },
			maxRedirects: 0,
		})
		expect(response.status()).toBe(302)
		// the page after sign-up shows the welcome toast; a pointer over it keeps it open
		await page.goto('/subscription')
		const toast = page.locator('[data-sonner-toast][data-type="success"]')
		await expect(toast).toContainText('Welcome to Leadsmith!')
		await toast.hover()
		await expectNoSeriousA11yViolations(page)
		await expect(toast).toBeVisible()
	})

	test('the enrich page with a finished run, at 390 and 1280 px', async ({ page }) => {
		test.setTimeout(90_000) // the worker runs the enrichment
		const { email } = await subscribedAccount(page, { credits: 50 })
		const listId = await seedLeadList(email, 'Founders', 4)
		await seedEnrichment(email, {
			name: 'Opener',
			prompt: 'Write a one-line opener for {{first_name}} at {{company_name}}',
			outputColumn: 'opener',
		})
		await page.goto(`/lists/${listId}/enrich`)
		await page.getByLabel('Enrichment or chain').selectOption({ label: 'Opener' })
		await page.getByLabel(/^Credits/).check()
		await page.getByRole('button', { name: 'Estimate the cost' }).click()
		await page.getByRole('button', { name: 'Run now' }).click()
		await expect(page.getByTestId('runs').getByText('Done', { exact: true })).toBeVisible({
			timeout: 45_000,
		})
		await checkAtBothWidths(page, `/lists/${listId}/enrich`, (p) =>
			expect(p.getByTestId('result-row')).toHaveCount(4),
		)
	})
})
