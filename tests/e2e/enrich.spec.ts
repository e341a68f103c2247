import { expect, test } from '@playwright/test'
import { seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'

test('create an enrichment, preview it, run it on a list and see the column @no-js', async ({
	page,
}, testInfo) => {
	test.setTimeout(90_000) // a shared, busy machine: the worker may take a while to pick the job up
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Founders', 6)

	await page.goto(`/enrichments?list=${listId}`)
	await expect(page).toHaveTitle('Enrichments | Leadsmith')
	const form = page.locator('form#enrichment')
	await form.getByLabel('Name').fill('Opener')
	await form.getByLabel('Prompt').fill('Write an opener for {{first_name}} at {{nickname}}')
	await form.getByLabel('Output column').fill('opener')
	await form.getByRole('button', { name: 'Save enrichment' }).click()
	await expect(page.getByText('Unknown column: {{nickname}}')).toBeVisible()

	await form.getByLabel('Prompt').fill('Write an opener for {{first_name}} at {{company_name}}')
	if (jsEnabled(testInfo)) {
		// leaving the field clears its error first (the buttons move up)
		await form.getByLabel('Prompt').blur()
		await expect(page.getByText('Unknown column: {{nickname}}')).toHaveCount(0)
	}
	await form.getByRole('button', { name: 'Preview on 5 rows' }).click()
	const preview = page.getByTestId('preview')
	await expect(preview).toContainText('AI(gpt-4o-mini): Write an opener for First0 at Acme 0')
	await expect(preview.locator('tbody tr')).toHaveCount(5)

	await form.getByRole('button', { name: 'Save enrichment' }).click()
	await expect(page.getByTestId('enrichment-list')).toContainText('Opener')

	await page.goto(`/lists/${listId}/enrich`)
	await page.getByLabel('Enrichment or chain').selectOption({ label: 'Opener' })
	await page.getByLabel(/^Credits/).check()
	await page.getByRole('button', { name: 'Estimate the cost' }).click()
	await expect(page.getByTestId('estimate')).toContainText('6 credits')
	await page.getByRole('button', { name: 'Run now' }).click()

	const results = page.getByTestId('results')
	await expect(results.locator('th', { hasText: 'opener' })).toBeVisible()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByTestId('runs').getByText('Done', { exact: true })).toBeVisible({
			timeout: 1000,
		})
	}).toPass({ timeout: 45_000 })
	await expect(results).toContainText('AI(gpt-4o-mini): Write an opener for First5 at Acme 5')
	await expect(page.getByTestId('runs')).toContainText('6 of 6 done')
	await expect(page.getByTestId('credit-balance')).toContainText('94')

	// a re-run: every answer is cached, and the estimate says what it really costs
	await page.goto(`/lists/${listId}/enrich`)
	await page.getByLabel('Enrichment or chain').selectOption({ label: 'Opener' })
	await page.getByLabel(/^Credits/).check()
	await page.getByRole('button', { name: 'Estimate the cost' }).click()
	await expect(page.getByTestId('estimate-charged')).toHaveText('0 credits')
	await expect(page.getByTestId('estimate')).toContainText('6 answers already cached')

	// the credit history names the run and its list, links to it, and gives the time
	await page.goto('/purchase')
	const ledger = page.getByTestId('ledger')
	const used = ledger.getByRole('link', { name: 'Enrichment “Opener” on Founders' }).first()
	await expect(used).toHaveAttribute(
		'href',
		new RegExp(`^/lists/${listId}/enrich\\?run=[0-9a-f-]{36}$`),
	)
	await expect(ledger).not.toContainText('enrich:')
	await expect(ledger.locator('time').first()).toHaveText(/\d{1,2}:\d{2}/)
})

test('a run whose rows are still being written says so, and can be cancelled @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Big', 6)
	const enrichmentId = await seedEnrichment(email, {
		name: 'Opener',
		prompt: 'Opener for {{first_name}}',
		outputColumn: 'opener',
	})
	// a run as startRun leaves it before the job has written its rows (no job: it stays so)
	const runId = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into enrichment_runs (user_id, list_id, enrichment_id, name, steps, key_kind, total,
				prepared, leads_cutoff)
			 select user_id, id, $2, 'Opener', '[]', 'ownKey', 6, false, now()
			 from processing_list where id = $1
			 returning id`,
			[listId, enrichmentId],
		)
		return rows[0]!.id
	})

	await page.goto(`/lists/${listId}/enrich`)
	const counts = page.getByTestId(`run-${runId}-counts`)
	await expect(counts).toHaveText('Preparing 6 leads…')
	await page.getByTestId('runs').getByRole('button', { name: 'Cancel' }).click()
	await expect(page.getByText('Run cancelled')).toBeVisible()
	await expect(page.getByTestId('runs')).toContainText('Cancelled')
	await expect(counts).toContainText('0 of 0 done')
})
