import { expect, test, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../../app/auth-service/totp.server.ts'
import { screens } from '../../app/routes.ts'
import { accountOf, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { seedCompanyList, seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import {
	expectNoSeriousA11yViolations,
	pageSettled,
	signedUp,
	signIn,
	signOut,
	withDatabase,
	firstLeadOf,
} from './support.ts'

// Every screen of the route table at 390 and 1280 px: no serious axe violation, the page never
// scrolls sideways, and no text is cut off by a box too small for it (issue 16, point 8).
// Each screen is listed in one of the groups below; a screen added to app/routes.ts without
// being listed here fails the first test.

const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

/** `status`: what the screen answers when it is not 200 (an invitation that does not exist: 404) */
type Visit = { path: string; screen: string; status?: number }

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

async function checkScreen(page: Page, visit: Visit) {
	for (const width of [390, 1280]) {
		await page.setViewportSize({ width, height: 900 })
		const response = await page.goto(visit.path)
		expect(response?.status(), `${visit.path} answers`).toBe(visit.status ?? 200)
		await expect(page.locator('h1').first()).toBeVisible()
		await pageSettled(page)
		expect(await layoutProblems(page), `${visit.path} at ${width} px`).toEqual([])
		await expectNoSeriousA11yViolations(page)
	}
}

const publicVisits: Visit[] = [
	{ screen: 'signin', path: '/signin' },
	{ screen: 'signup', path: '/signup' },
	{ screen: 'forgot-password', path: '/forgot-password' },
	{ screen: 'reset-password', path: '/reset-password?email=someone%40example.com' },
	{ screen: 'admin-login', path: '/admin-login' },
	{ screen: 'accept-invitation', path: '/accept-invitation?token=not-a-token', status: 404 },
]
const adminScreens = [
	'admin-dashboard',
	'admin-user',
	'admin-plans',
	'admin-jobs',
	'admin-inbox-orders',
	'admin-templates',
	'admin-audit',
]
const accountScreens = [
	'index',
	'settings',
	'subscription',
	'purchase',
	'test-payment',
	'team-members',
	'workspaces',
	'attach-workspace',
	'api-keys',
	'notifications',
	'do-not-contact',
]
const listScreens = [
	'create-leads',
	'create-companies',
	'scrape',
	'file-list',
	'list',
	'list-import-report',
	'company-list',
	'enrich-company-list',
	'emailbison-upload',
	'uploads',
	'enrichments',
	'enrich-list',
	'lead',
	'list-columns',
	'verify-list',
	'onboarding',
]
const sendingScreens = [
	'domains',
	'domains-import',
	'domain-subscriptions',
	'url-forward',
	'ordering-inboxes',
	'checkout',
	'inboxes',
]

test.describe('every screen at 390 and 1280 px', () => {
	// axe runs as a script in the page; the layout is the same HTML without JavaScript
	test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'needs JavaScript')
	// many pages, two widths and an axe scan each, on a busy 2-core machine
	test.describe.configure({ timeout: 300_000 })

	test('the groups below list every screen of the route table', () => {
		const listed = [
			...publicVisits.map((v) => v.screen),
			'signin-verify',
			...adminScreens,
			...accountScreens,
			...listScreens,
			...sendingScreens,
		]
		expect([...listed].sort()).toEqual(screens.map((s) => s.name).sort())
	})

	test('public screens and the 404 screen', async ({ page }) => {
		for (const visit of publicVisits) await checkScreen(page, visit)
		for (const width of [390, 1280]) {
			await page.setViewportSize({ width, height: 900 })
			await page.goto('/no-such-page')
			await expect(page.locator('h1').first()).toBeVisible()
			expect(await layoutProblems(page), `404 at ${width} px`).toEqual([])
			await expectNoSeriousA11yViolations(page)
		}
	})

	test('the two-factor code screen', async ({ page }) => {
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
		await checkScreen(page, { screen: 'signin-verify', path: '/signin/verify' })
	})

	test('account, billing and team screens', async ({ page }) => {
		const { email } = await subscribedAccount(page)
		const { userId, workspaceId } = await accountOf(email)
		const listId = await seedLeadList(email, 'Account screens', 2)
		// two workspaces whose names differ only at the end: the switcher must tell them apart
		await withDatabase((client) =>
			client.query(`update workspaces set name = 'Acme Corporation Europe North' where id = $1;`, [
				workspaceId,
			]),
		)
		await withDatabase((client) =>
			client.query(
				`insert into workspaces (user_id, name) values ($1, 'Acme Corporation Europe South')`,
				[userId],
			),
		)
		await page.goto('/purchase')
		await page.getByRole('button', { name: /^Buy/ }).first().click()
		await expect(page).toHaveURL(/\/test-payment\//)
		const testPayment = new URL(page.url()).pathname
		const visits: Visit[] = [
			{ screen: 'index', path: '/' },
			{ screen: 'settings', path: '/settings' },
			{ screen: 'subscription', path: '/subscription' },
			{ screen: 'purchase', path: '/purchase' },
			{ screen: 'test-payment', path: testPayment },
			{ screen: 'team-members', path: '/team-members' },
			{ screen: 'workspaces', path: '/workspaces' },
			{
				screen: 'attach-workspace',
				path: `/attach-workspace?type=list&id=${listId}&redirectTo=%2Ffile-list`,
			},
			{ screen: 'api-keys', path: '/api-keys' },
			{ screen: 'notifications', path: '/notifications' },
			{ screen: 'do-not-contact', path: '/do-not-contact' },
		]
		expect(visits.map((v) => v.screen)).toEqual(accountScreens)
		for (const visit of visits) await checkScreen(page, visit)

		// the workspace switcher shows the whole name of the current workspace at both widths
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

	test('lists, enrichment and onboarding screens', async ({ page, browser }) => {
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
		await seedEnrichment(email, {
			name: 'Opener',
			prompt: 'Write a one-line opener for {{first_name}} at {{company_name}}',
			outputColumn: 'opener',
		})
		const companyListId = await seedCompanyList(email, 'Company screens', 3, {
			companyName: 'Firm number',
			domainStem: 'firm-number-',
		})
		const visits: Visit[] = [
			{ screen: 'create-leads', path: '/create-leads' },
			{ screen: 'create-companies', path: '/create-companies' },
			{ screen: 'scrape', path: '/scrape' },
			{ screen: 'file-list', path: '/file-list' },
			{ screen: 'list', path: `/lists/${listId}` },
			{ screen: 'list-import-report', path: `/lists/${listId}/import-report` },
			{ screen: 'company-list', path: `/company-lists/${companyListId}` },
			{ screen: 'enrich-company-list', path: `/company-lists/${companyListId}/enrich` },
			{ screen: 'emailbison-upload', path: `/lists/${listId}/upload` },
			{ screen: 'uploads', path: '/uploads' },
			{ screen: 'enrichments', path: '/enrichments' },
			{ screen: 'enrich-list', path: `/lists/${listId}/enrich` },
			{ screen: 'lead', path: `/lists/${listId}/leads/${await firstLeadOf(listId)}` },
			{ screen: 'list-columns', path: `/lists/${listId}/columns` },
			{ screen: 'verify-list', path: `/lists/${listId}/verify` },
		]
		for (const visit of visits) await checkScreen(page, visit)

		// onboarding is shown to an owner with a plan who has not completed it
		const newcomer = await browser.newPage()
		try {
			await subscribedAccount(newcomer, { onboarded: false })
			await checkScreen(newcomer, { screen: 'onboarding', path: '/onboarding' })
		} finally {
			await newcomer.close()
		}
		expect([...visits.map((v) => v.screen), 'onboarding']).toEqual(listScreens)
	})

	test('domains, forwarding, inbox ordering and inboxes', async ({ page }) => {
		const { email } = await subscribedAccount(page)
		const domain = uniqueDomain('screens')
		const [domainId] = await subscribedDomains(email, [domain])
		const unsubscribed = uniqueDomain('screens-nosub')
		const { userId, workspaceId } = await accountOf(email)
		const unsubscribedId = await withDatabase(async (client) => {
			const { rows: order } = await client.query<{ id: string }>(
				`insert into inbox_orders (user_id, workspace_id, provider, status, inboxes_per_domain,
					domain_ids, total_cents, billing_provider, price_cents, quantity, billing_date, paid_through)
				values ($1, $2, 'google', 2, 1, array[$3::uuid], 300, 'test', 300, 1, now(),
					now() + interval '20 days')
				returning id`,
				[userId, workspaceId, domainId],
			)
			await client.query(
				`insert into inboxes (user_id, workspace_id, order_id, domain_id, provider, address,
					first_name, last_name, status, cancel_at_period_end, period_end)
				values ($1, $2, $3, $4, 'google', $5, 'Ada', 'Lovelace', 'active', false,
					now() + interval '20 days')`,
				[userId, workspaceId, order[0]!.id, domainId, `ada.lovelace@${domain}`],
			)
			const { rows } = await client.query<{ id: string }>(
				`insert into domains (user_id, workspace_id, name, source) values ($1, $2, $3, 'imported')
				returning id`,
				[userId, workspaceId, unsubscribed],
			)
			return rows[0]!.id
		})
		const visits: Visit[] = [
			{ screen: 'domains', path: '/domains' },
			{ screen: 'domains-import', path: '/domains/import' },
			{ screen: 'domain-subscriptions', path: '/domain-subscriptions' },
			{ screen: 'url-forward', path: '/url-forward' },
			{ screen: 'ordering-inboxes', path: '/ordering-inboxes' },
			{ screen: 'checkout', path: `/checkout?domain=${unsubscribedId}` },
			{ screen: 'inboxes', path: '/inboxes' },
		]
		expect(visits.map((v) => v.screen)).toEqual(sendingScreens)
		for (const visit of visits) await checkScreen(page, visit)
	})

	test('admin screens', async ({ page, browser }) => {
		// someone to look at, with a plan, a list and an inbox order
		const customer = await browser.newPage()
		const { email } = await subscribedAccount(customer)
		await customer.close()
		const { userId } = await accountOf(email)
		await page.goto('/admin-login')
		await signIn(page, ADMIN.email, ADMIN.password)
		await page.waitForURL('**/admin-dashboard')
		const visits: Visit[] = [
			{ screen: 'admin-dashboard', path: '/admin-dashboard' },
			{ screen: 'admin-user', path: `/admin-dashboard/users/${userId}` },
			{ screen: 'admin-plans', path: '/admin-dashboard/plans' },
			{ screen: 'admin-jobs', path: '/admin-dashboard/jobs' },
			{ screen: 'admin-inbox-orders', path: '/admin-dashboard/inbox-orders' },
			{ screen: 'admin-templates', path: '/admin-dashboard/templates' },
			{ screen: 'admin-audit', path: '/admin-dashboard/audit' },
		]
		expect(visits.map((v) => v.screen)).toEqual(adminScreens)
		for (const visit of visits) await checkScreen(page, visit)
	})
})
