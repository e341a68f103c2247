import { expect, test } from '@playwright/test'
import { accountOf, publishDns, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, withDatabase } from './support.ts'

// Domain health (issue 38): a failing domain's grade and the records that fix it, with
// JavaScript on and off, and at 390 px.
test.describe.configure({ timeout: 120_000 })

test('a failing domain shows its grade and the exact records to fix @no-js', async ({
	page,
	browser,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const failing = uniqueDomain('health-bad')
	const healthy = uniqueDomain('health-good')
	const [failingId, healthyId] = await subscribedDomains(email, [failing, healthy])
	const { userId, workspaceId } = await accountOf(email)
	await withDatabase((client) =>
		client.query(
			`insert into inboxes (user_id, workspace_id, domain_id, provider, address)
			values ($1, $2, $3, 'google', $4), ($1, $2, $5, 'google', $6)`,
			[userId, workspaceId, failingId, `ada@${failing}`, healthyId, `bob@${healthy}`],
		),
	)
	publishDns('_spf.google.com', { TXT: ['v=spf1 ip4:35.190.247.0/24 ~all'] })
	// the failing one: mail servers but no SPF, no DMARC and no DKIM key
	publishDns(failing, { A: ['203.0.113.20'], MX: [{ priority: 1, exchange: 'smtp.google.com' }] })
	publishDns(healthy, {
		A: ['203.0.113.21'],
		MX: [{ priority: 1, exchange: 'smtp.google.com' }],
		TXT: ['v=spf1 include:_spf.google.com ~all'],
	})
	publishDns(`_dmarc.${healthy}`, { TXT: [`v=DMARC1; p=none; rua=mailto:d@${healthy}`] })
	publishDns(`google._domainkey.${healthy}`, { TXT: ['v=DKIM1; k=rsa; p=MIIB'] })

	for (const id of [healthyId, failingId]) {
		await page.goto(`/domains/${id}/health`)
		await page.getByRole('button', { name: 'Check now' }).click()
		await expect(page.getByTestId('health-grade')).toBeVisible()
	}
	// the failing domain's card: the grade, and the SPF and DMARC records to add, as text
	const card = page.getByTestId('health-card')
	await expect(card.getByTestId('health-grade')).toHaveText('F')
	await expect(card).toContainText('Failing')
	const spf = card.getByTestId('check-spf')
	await expect(spf).toHaveAttribute('data-status', 'fail')
	await expect(spf.getByTestId('fix-record')).toContainText('Add this record')
	await expect(spf.getByTestId('fix-record').locator('code')).toHaveText([
		'@',
		'TXT',
		'v=spf1 include:_spf.google.com ~all',
	])
	const dmarc = card.getByTestId('check-dmarc')
	await expect(dmarc.getByTestId('fix-record').locator('code')).toHaveText([
		'_dmarc',
		'TXT',
		`v=DMARC1; p=none; rua=mailto:dmarc@${failing}`,
	])
	await expect(card.getByTestId('check-dkim')).toHaveAttribute('data-status', 'fail')
	await expect(card.getByTestId('check-mx')).toHaveAttribute('data-status', 'pass')
	// the domain's inbox beside EmailBison's view (not connected here: the page says so)
	const inboxes = page.getByTestId('inboxes-beside')
	await expect(inboxes).toContainText(`ada@${failing}`)
	await expect(inboxes).toContainText('Connect EmailBison in Settings')
	// a copy button only where JavaScript runs; the value is there to select either way
	await expect(spf.getByRole('button', { name: /^Copy/ })).toHaveCount(jsEnabled(testInfo) ? 2 : 0)
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)

	// the table's grade column, and the whole account worst first
	await page.setViewportSize({ width: 1280, height: 900 })
	await page.goto('/domains')
	await expect(page.locator(`tr[data-domain="${failing}"]`)).toContainText('F·Failing')
	await expect(page.locator(`tr[data-domain="${healthy}"]`)).toContainText('A·Healthy')
	// at 1280 px the Health column is beside the sticky actions, not under them
	const row = page.locator(`tr[data-domain="${failing}"]`)
	const healthBox = await row
		.locator('td')
		.filter({ has: page.getByTestId('health-grade') })
		.boundingBox()
	const actionsBox = await row.locator('td').last().boundingBox()
	expect(healthBox!.x + healthBox!.width).toBeLessThanOrEqual(actionsBox!.x)
	// sorted by grade: the worst first, then the best first
	const table = page.getByTestId('domains')
	const order = () =>
		table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-domain')))
	await table.getByRole('link', { name: /^Health/ }).click()
	await expect(table.getByRole('columnheader', { name: /^Health/ })).toHaveAttribute(
		'aria-sort',
		'ascending',
	)
	await expect.poll(order).toEqual([failing, healthy])
	await table.getByRole('link', { name: /^Health/ }).click()
	await expect(table.getByRole('columnheader', { name: /^Health/ })).toHaveAttribute(
		'aria-sort',
		'descending',
	)
	await expect.poll(order).toEqual([healthy, failing])

	await page.goto('/domains/health')
	const names = page.getByTestId('health-list').getByRole('heading', { level: 2 })
	await expect(names).toHaveText([failing, healthy])
	const sortBy = page.getByRole('navigation', { name: 'Sort domains' })
	await sortBy.getByRole('link', { name: /^Grade/ }).click()
	await expect(sortBy.getByRole('link', { name: /^Grade/ })).toContainText('sorted descending')
	await expect(names).toHaveText([healthy, failing])

	// 390 px: the cards and their long record values, and the tables, stay inside the screen
	await page.setViewportSize({ width: 390, height: 900 })
	const overflow = () =>
		page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
	await page.goto(`/domains/${failingId}/health`)
	await expect(page.getByTestId('fix-record').first()).toBeVisible()
	expect(await overflow()).toBeLessThanOrEqual(0)
	await page.goto('/domains/health')
	await expect(page.getByTestId('fix-record').first()).toBeVisible()
	expect(await overflow()).toBeLessThanOrEqual(0)
	await page.goto('/domains')
	await expect(page.getByTestId('domains')).toBeVisible()
	expect(await overflow()).toBeLessThanOrEqual(0)

	// another account sees a 404 for this domain's health
	const stranger = await browser.newPage({ javaScriptEnabled: jsEnabled(testInfo) })
	try {
		await subscribedAccount(stranger)
		const response = await stranger.goto(`/domains/${failingId}/health`)
		expect(response?.status()).toBe(404)
	} finally {
		await stranger.close()
	}
})
