import { expect, test } from '@playwright/test'
import { seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, withDatabase } from './support.ts'

// Issue 34 point 5: where the credits went. The ledger lines are written as the services write
// them (their vitest: app/services/billing/credit-history.test.ts); here the user reads them.

/** An ended enrichment run "Opener" on the list that held 6 credits and used 5, and an admin's grant. */
async function seedSpending(email: string, listId: string) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string; user_id: string }>(
			`insert into enrichment_runs (user_id, list_id, name, steps, key_kind, total, status,
				prepared, leads_cutoff, credits_reserved, finished_at)
			 select id, $2, 'Opener', '[]', 'credits', 6, 2, true, now(), 6, now()
			 from auth.users where email = $1
			 returning id, user_id`,
			[email, listId],
		)
		const { id: runId, user_id: userId } = rows[0]!
		const line = (delta: number, after: number, reason: string, reference: string | null) =>
			client.query(
				`insert into credits (user_id, delta, balance_after, reason, reference, list_id,
					enrichment_run_id, note, created_at)
				 values ($1, $2, $3, $4, $5, $6, $7, $8, clock_timestamp())`,
				[
					userId,
					delta,
					after,
					reason,
					reference,
					reason === 'admin' ? null : listId,
					reason === 'admin' ? null : runId,
					reason === 'admin' ? 'Sorry for Monday’s outage' : null,
				],
			)
		// the hold, its settlement (which the dashboard's daily sums follow) and the refund
		await client.query(
			`insert into credit_reservations (user_id, reference, reason, amount)
			 values ($1, $2, 'reservation', 6)`,
			[userId, `enrich:${runId}:1`],
		)
		await line(-6, 94, 'reservation', `enrich:${runId}:1`)
		await client.query(
			`update credit_reservations set status = 'settled', used = 5, settled_at = now()
			 where user_id = $1 and reference = $2`,
			[userId, `enrich:${runId}:1`],
		)
		await line(1, 95, 'refund', `enrich:${runId}:1`)
		await line(50, 145, 'admin', null)
		await client.query('update credit_balances set balance = 145 where user_id = $1', [userId])
		return runId
	})
}

test('the credit history says what each line was for, links to it, with its time and an admin’s note; the list and the chart say what was spent @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Founders', 6)
	const runId = await seedSpending(email, listId)

	await page.goto('/purchase')
	const ledger = page.getByTestId('ledger')
	const rows = ledger.getByRole('row')
	// newest first: the grant with its note, the refund, the hold
	await expect(rows.nth(1)).toContainText('Granted by an admin')
	await expect(rows.nth(1).getByTestId('ledger-note')).toHaveText('Note: Sorry for Monday’s outage')
	await expect(rows.nth(1)).toContainText('+50')
	await expect(rows.nth(2)).toContainText('Unused credits returned')
	await expect(rows.nth(3)).toContainText('−6')
	// the time of day with the date and its zone, one format
	await expect(rows.nth(3).locator('time')).toHaveText(
		/^\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s?[AP]M \S+$/,
	)
	await expect(ledger).not.toContainText('enrich:')
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)
	const used = rows.nth(3).getByRole('link', { name: 'Enrichment “Opener” on Founders' })
	await expect(used).toHaveAttribute('href', `/lists/${listId}/enrich?run=${runId}`)
	await used.click()
	await expect(page).toHaveURL(`/lists/${listId}/enrich?run=${runId}`)
	await expect(page.getByRole('link', { name: 'Opener', exact: true })).toHaveAttribute(
		'aria-current',
		'true',
	)

	// the list says what it cost, each run apart (net of what came back)
	await page.goto(`/lists/${listId}`)
	const cost = page.getByTestId('list-cost')
	await expect(cost).toContainText('Cost so far: 5 credits')
	await cost.locator('summary').click()
	await expect(cost.getByTestId('run-cost')).toHaveText('Enrichment “Opener”: 5 credits')
	await expect(cost.getByRole('link', { name: 'Enrichment “Opener”' })).toHaveAttribute(
		'href',
		`/lists/${listId}/enrich?run=${runId}`,
	)
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)

	// the dashboard's chart: labelled axes, dates, each day's value in its title, a table for
	// screen readers
	await page.goto('/')
	const chart = page.getByTestId('spent-chart')
	await expect(chart.getByTestId('spent-y-axis')).toContainText('Credits')
	await expect(chart.getByTestId('spent-x-axis')).toContainText('Day (UTC)')
	const today = new Date().toLocaleDateString('en', {
		month: 'short',
		day: 'numeric',
		timeZone: 'UTC',
	})
	await expect(chart.getByTestId('spent-x-axis')).toContainText(today)
	await expect(chart.getByTestId('spent-day').last().locator('title')).toHaveText(
		`${today}: 5 credits`,
	)
	await expect(chart.getByTestId('spent-day')).toHaveCount(30)
	const table = page.getByRole('table', { name: /Credits spent on each day/ })
	await expect(table.getByRole('row', { name: `${today} 5` })).toHaveCount(1)
	if (jsEnabled(testInfo)) {
		await expectNoSeriousA11yViolations(page)
		// the chart is drawn on the server: its bars are in the page as sent
		const html = await (await page.request.get('/')).text()
		expect(html).toContain('data-testid="spent-chart"')
	}
})

test('the credit history goes back a page at a time @no-js', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	await withDatabase((client) =>
		client.query(
			`insert into credits (user_id, delta, balance_after, reason, created_at)
			 select u.id, 1, i, 'admin', now() - (i || ' minutes')::interval
			 from auth.users u, generate_series(1, 30) i where u.email = $1`,
			[email],
		),
	)
	await page.goto('/purchase')
	await expect(page.getByTestId('ledger').getByRole('row')).toHaveCount(26)
	await expect(page.getByTestId('ledger-page')).toHaveText('1–25')
	await page.getByRole('link', { name: 'Next' }).click()
	await expect(page.getByTestId('ledger-page')).toHaveText('26–30')
	await expect(page.getByTestId('ledger').getByRole('row')).toHaveCount(6)
	await page.getByRole('link', { name: 'Previous' }).click()
	await expect(page.getByTestId('ledger-page')).toHaveText('1–25')
})

for (const width of [390, 1280]) {
	test(`plan prices are never clipped at ${width} px`, async ({ page }) => {
		await page.setViewportSize({ width, height: 900 })
		await subscribedAccount(page)
		await page.goto('/subscription')
		const cards = page.locator('li[data-testid^="plan-"]')
		await expect(cards).toHaveCount(4)
		for (const card of await cards.all()) {
			const price = card.getByText(/^\$[\d,]+\.\d{2}$/)
			await expect(price).toBeVisible()
			const fits = await price.evaluate((el) => {
				const box = el.getBoundingClientRect()
				const card = el.closest('li')!
				const cardBox = card.getBoundingClientRect()
				return {
					inside: box.left >= cardBox.left && box.right <= cardBox.right + 0.5,
					cardWhole: card.scrollWidth <= card.clientWidth + 1,
				}
			})
			expect(fits, await price.innerText()).toEqual({ inside: true, cardWhole: true })
		}
	})
}
