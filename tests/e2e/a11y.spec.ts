import { expect, test, type Page } from '@playwright/test'
import { accountOf, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, PASSWORD, uniqueEmail, withDatabase } from './support.ts'

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
