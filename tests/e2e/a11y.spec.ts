import { expect, test, type Browser, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../../app/auth-service/totp.server.ts'
import { screens } from '../../app/routes.ts'
import { accountOf, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { seedCompanyList, seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import {
	expectNoSeriousA11yViolations,
	expectNoSeriousA11yViolationsWithoutJs,
	PASSWORD,
	signedUp,
	signIn,
	signOut,
	uniqueEmail,
	withDatabase,
	firstLeadOf,
} from './support.ts'

/** At 390 and 1280 px: no serious axe violation, and nothing makes the page scroll sideways. */
async function checkAtBothWidths(page: Page, path: string, ready: (page: Page) => Promise<void>) {
	for (const width of [390, 1280]) {
		await page.setViewportSize({ width, height: 900 })
		await page.goto(path)
		await ready(page)
		await expectNoSeriousA11yViolations(page)
		const sideways = await page.evaluate(
			() => document.documentElement.scrollWidth - document.documentElement.clientWidth,
		)
		expect(sideways, `${path} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0)
	}
}

test.describe('no serious accessibility violations', () => {
	// axe runs as a script in the page
	test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, 'needs JavaScript')
	// every screen's plain state is in screens.spec.ts; these are states that take seeding
	test('editing an enrichment and a chain, at 390 and 1280 px', async ({ page }) => {
		const { email } = await subscribedAccount(page)
		await seedLeadList(email, 'Prospects', 3)
		const id = await seedEnrichment(email, {
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
						{ kind: 'ai', enrichmentId: id },
					]),
				],
			)
			return rows[0]!.id
		})
		await checkAtBothWidths(page, `/enrichments?edit=${id}`, (p) =>
			expect(p.getByRole('heading', { name: 'Edit AI enrichment “Opener”' })).toBeVisible(),
		)
		await checkAtBothWidths(page, `/enrichments?editChain=${chainId}`, (p) =>
			expect(p.getByRole('heading', { name: 'Edit chain “Domains then opener”' })).toBeVisible(),
		)
	})

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

	test('domain subscriptions, order inboxes and inboxes, at 390 and 1280 px', async ({ page }) => {
		const { email } = await subscribedAccount(page)
		const domain = uniqueDomain('a11y')
		const [domainId] = await subscribedDomains(email, [domain])
		const { userId, workspaceId } = await accountOf(email)
		await withDatabase(async (client) => {
			// an unsubscribed domain, a delivered order with a live and a cancelling inbox
			await client.query(
				`insert into domains (user_id, workspace_id, name, source) values ($1, $2, $3, 'imported')`,
				[userId, workspaceId, uniqueDomain('nosub')],
			)
			const { rows } = await client.query<{ id: string }>(
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
					[userId, workspaceId, rows[0]!.id, domainId, `${name}@${domain}`, name, cancelling],
				)
			}
		})
		await checkAtBothWidths(page, '/domain-subscriptions', (p) =>
			expect(p.locator(`tr[data-domain="${domain}"]`)).toContainText('Renews'),
		)
		await checkAtBothWidths(page, '/inboxes', (p) =>
			expect(p.locator(`tr[data-inbox="grace@${domain}"]`)).toContainText('Ends'),
		)
		await checkAtBothWidths(page, '/ordering-inboxes', async (p) => {
			await p.getByLabel(domain).check()
			await p.getByLabel('Inboxes a domain').fill('2')
			await p.getByLabel('Persona names').fill('Alan Turing')
			await p.getByRole('button', { name: 'Get a quote' }).click()
			await expect(p.getByTestId('quote-summary')).toBeVisible()
			await expect(p.getByTestId('orders')).toContainText('delivered')
		})
	})
})

// Every screen of the route table without JavaScript (native fallbacks, <details> menus): signed
// out, as an owner with data on every screen, and as the platform admin, at 390 and 1280 px. With
// JavaScript, screens.spec.ts scans every screen at both widths. The page is loaded once per
// screen: without JavaScript the HTML does not depend on the width, only the styles do.
test.describe('every screen without JavaScript has no serious violation @no-js', () => {
	test.skip(({ javaScriptEnabled }) => javaScriptEnabled !== false, 'screens.spec.ts scans them')
	test.describe.configure({ timeout: 300_000 })

	type Visit = { screen: string; path: string; status?: number }
	// the screens each test below visits (the last test checks they are all of app/routes.ts)
	const groups: Record<string, string[]> = {
		public: [
			...['signin', 'signup', 'forgot-password', 'reset-password', 'admin-login'],
			...['accept-invitation', 'not-found'],
		],
		twoFactor: ['signin-verify'],
		account: [
			...['index', 'settings', 'subscription', 'purchase', 'test-payment', 'team-members'],
			...['workspaces', 'attach-workspace', 'api-keys', 'domains', 'domains-import'],
			...['domain-subscriptions', 'url-forward', 'ordering-inboxes', 'checkout', 'inboxes'],
			'notifications',
			'do-not-contact',
		],
		lists: [
			...['create-leads', 'create-companies', 'scrape', 'file-list', 'list'],
			...['list-import-report', 'company-list', 'enrich-company-list', 'emailbison-upload'],
			...['uploads', 'enrichments', 'enrich-list', 'lead', 'list-columns', 'verify-list'],
		],
		onboarding: ['onboarding'],
		admin: [
			...['admin-dashboard', 'admin-user', 'admin-plans', 'admin-jobs', 'admin-inbox-orders'],
			...['admin-templates', 'admin-audit'],
		],
	}

	async function scan(page: Page, browser: Browser, group: string, visits: Visit[]) {
		expect(visits.map((v) => v.screen)).toEqual(groups[group])
		const scannerContext = await browser.newContext({ javaScriptEnabled: true })
		const scanner = await scannerContext.newPage()
		try {
			for (const visit of visits) {
				const response = await page.goto(visit.path)
				expect(response?.status(), `${visit.path} answers`).toBe(visit.status ?? 200)
				await expect(page.locator('h1').first()).toBeVisible()
				await expectNoSeriousA11yViolationsWithoutJs(page, scanner, [390, 1280])
			}
		} finally {
			await scannerContext.close()
		}
	}

	test('signed out, and the 404 screen', async ({ page, browser }) => {
		await scan(page, browser, 'public', [
			{ screen: 'signin', path: '/signin' },
			{ screen: 'signup', path: '/signup' },
			{ screen: 'forgot-password', path: '/forgot-password' },
			{ screen: 'reset-password', path: '/reset-password?email=someone%40example.com' },
			{ screen: 'admin-login', path: '/admin-login' },
			{ screen: 'accept-invitation', path: '/accept-invitation?token=not-a-token', status: 404 },
			{ screen: 'not-found', path: '/no-such-page', status: 404 },
		])
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
		await scan(page, browser, 'twoFactor', [{ screen: 'signin-verify', path: '/signin/verify' }])
	})

	test('as an owner: account, billing, team and sending screens', async ({ page, browser }) => {
		const { email } = await subscribedAccount(page)
		const listId = await seedLeadList(email, 'Account screens', 2)
		const [domainId] = await subscribedDomains(email, [uniqueDomain('nojs')])
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
				select $1, $2, $3, $4, 'google', 'ada@' || name, 'Ada', 'Lovelace', 'active', false,
					now() + interval '20 days' from domains where id = $4`,
				[userId, workspaceId, order[0]!.id, domainId],
			)
			const { rows } = await client.query<{ id: string }>(
				`insert into domains (user_id, workspace_id, name, source) values ($1, $2, $3, 'imported')
				returning id`,
				[userId, workspaceId, uniqueDomain('nojs-nosub')],
			)
			return rows[0]!.id
		})
		await page.goto('/purchase')
		await page.getByRole('button', { name: /^Buy/ }).first().click()
		await expect(page).toHaveURL(/\/test-payment\//)
		await scan(page, browser, 'account', [
			{ screen: 'index', path: '/' },
			{ screen: 'settings', path: '/settings' },
			{ screen: 'subscription', path: '/subscription' },
			{ screen: 'purchase', path: '/purchase' },
			{ screen: 'test-payment', path: new URL(page.url()).pathname },
			{ screen: 'team-members', path: '/team-members' },
			{ screen: 'workspaces', path: '/workspaces' },
			{
				screen: 'attach-workspace',
				path: `/attach-workspace?type=list&id=${listId}&redirectTo=%2Ffile-list`,
			},
			{ screen: 'api-keys', path: '/api-keys' },
			{ screen: 'domains', path: '/domains' },
			{ screen: 'domains-import', path: '/domains/import' },
			{ screen: 'domain-subscriptions', path: '/domain-subscriptions' },
			{ screen: 'url-forward', path: '/url-forward' },
			{ screen: 'ordering-inboxes', path: '/ordering-inboxes' },
			{ screen: 'checkout', path: `/checkout?domain=${unsubscribedId}` },
			{ screen: 'inboxes', path: '/inboxes' },
			{ screen: 'notifications', path: '/notifications' },
			{ screen: 'do-not-contact', path: '/do-not-contact' },
		])
	})

	test('as an owner: lists, enrichment and onboarding screens', async ({ page, browser }) => {
		const { email } = await subscribedAccount(page, { credits: 100 })
		const listId = await seedLeadList(email, 'List screens', 3)
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
		const companyListId = await seedCompanyList(email, 'Company screens', 3)
		await scan(page, browser, 'lists', [
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
		])
		await page.context().clearCookies()
		await subscribedAccount(page, { onboarded: false })
		await scan(page, browser, 'onboarding', [{ screen: 'onboarding', path: '/onboarding' }])
	})

	test('as the platform admin', async ({ page, browser }) => {
		const customer = await browser.newPage()
		const { email } = await subscribedAccount(customer)
		await customer.close()
		const { userId } = await accountOf(email)
		await page.goto('/admin-login')
		await signIn(page, 'admin@e2e.test', 'admin-password-1')
		await page.waitForURL('**/admin-dashboard')
		await scan(page, browser, 'admin', [
			{ screen: 'admin-dashboard', path: '/admin-dashboard' },
			{ screen: 'admin-user', path: `/admin-dashboard/users/${userId}` },
			{ screen: 'admin-plans', path: '/admin-dashboard/plans' },
			{ screen: 'admin-jobs', path: '/admin-dashboard/jobs' },
			{ screen: 'admin-inbox-orders', path: '/admin-dashboard/inbox-orders' },
			{ screen: 'admin-templates', path: '/admin-dashboard/templates' },
			{ screen: 'admin-audit', path: '/admin-dashboard/audit' },
		])
	})

	test('the groups above list every screen of the route table', () => {
		const listed = Object.values(groups)
			.flat()
			.filter((name) => name !== 'not-found')
		expect([...listed].sort()).toEqual(screens.map((s) => s.name).sort())
	})
})
