import { expect, test, type Page } from '@playwright/test'
import { seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { pageSettled, withDatabase } from './support.ts'

// The enrich page as the walk of issue 34 found it with a typical finished run: its results
// squeezed into two thirds of the width (Status cut off), every long answer written out in full
// (the page 6,500 px tall), the "Which leads" conditions always open, JSON answers raw.

/** What the fake model answers a prompt of a few sentences: the prompt, echoed. */
const OPENER =
	'AI(gpt-4o-mini): Write a two-sentence opener for First at Acme that mentions their recent ' +
	'growth, their hiring of engineers in Europe and the product launch of last quarter, in a ' +
	'friendly tone, without flattery, and end with a question about their outbound process ' +
	'and the tools their sales team uses today.'

/**
 * A finished run of two enrichments (a text opener and a JSON profile) over a list of 50
 * leads (one results page), as the enrich job leaves it.
 */
async function seedFinishedRun(email: string) {
	const listId = await seedLeadList(email, 'Founders', 50)
	await withDatabase(async (client) => {
		await client.query(
			`update leads set data = jsonb_build_object('opener', $2::text, 'profile',
				jsonb_build_object('industry', 'Software', 'employees', 120,
					'offices', jsonb_build_array('Berlin', 'Lisbon')))
			 where list_id = $1`,
			[listId, OPENER],
		)
		const steps = ['opener', 'profile'].map((outputColumn) => ({
			kind: 'ai',
			enrichmentId: '00000000-0000-0000-0000-000000000000',
			name: outputColumn,
			prompt: 'Write an opener for {{first_name}}',
			outputColumn,
			format:
				outputColumn === 'profile'
					? { kind: 'json', fields: [{ name: 'industry', type: 'string' }] }
					: { kind: 'text' },
			model: 'gpt-4o-mini',
			temperature: null,
			condition: null,
		}))
		const { rows } = await client.query<{ id: string }>(
			`insert into enrichment_runs (user_id, list_id, name, steps, key_kind, total, prepared,
				status, rows_done, calls, leads_cutoff, started_at, finished_at)
			 select user_id, id, 'Opener and profile', $2, 'ownKey', 50, true, 2, 50, 100, now(), now(), now()
			 from processing_list where id = $1
			 returning id`,
			[listId, JSON.stringify(steps)],
		)
		await client.query(
			`insert into enrichment_run_rows (run_id, lead_id, status)
			 select $2, id, 2 from leads where list_id = $1`,
			[listId, rows[0]!.id],
		)
	})
	return listId
}

/** The content box of the page's main column. */
async function mainColumnWidth(page: Page) {
	return page.locator('main').evaluate((main) => {
		const style = getComputedStyle(main)
		return main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
	})
}

test('a finished run: results across the width, Status in view, long answers clamped, the page of bounded height', async ({
	page,
}, testInfo) => {
	await page.setViewportSize({ width: 1280, height: 800 })
	const { email } = await subscribedAccount(page)
	const listId = await seedFinishedRun(email)
	await page.goto(`/lists/${listId}/enrich`)
	await pageSettled(page)

	const results = page.getByTestId('results')
	await expect(results.getByTestId('result-row')).toHaveCount(50)
	const main = await mainColumnWidth(page)
	// what the table shows: its scrolling box
	const region = (await page.getByRole('region', { name: /^Results of/ }).boundingBox())!
	// soft: each measure is reported even when an earlier one fails
	expect
		.soft(region.width, 'the results table against the main column')
		.toBeGreaterThanOrEqual(0.95 * main)
	// the Status column is inside what its scrolling box shows, not cut off at its right
	const status = (await results.getByRole('columnheader', { name: 'Status' }).boundingBox())!
	expect.soft(status.x + status.width).toBeLessThanOrEqual(region.x + region.width + 1)

	const height = await page.evaluate(() => document.documentElement.scrollHeight)
	testInfo.annotations.push({ type: 'enrich page height at 1280 px', description: `${height} px` })
	console.log(`enrich page height at 1280 px with 50 results: ${height} px`)
	expect.soft(height).toBeLessThan(4000)

	// a long answer shows two lines, and all of it on demand, from the keyboard too
	const answer = results.getByTestId('result-row').first().getByRole('cell').nth(2)
	const clamped = (await answer.boundingBox())!.height
	expect(clamped).toBeLessThan(70)
	await expect(answer.locator('summary')).toContainText('Show all')
	await answer.locator('summary').focus()
	await page.keyboard.press('Enter')
	await expect(answer.getByText(/tools their sales team uses today\.$/)).toBeVisible()
	expect((await answer.boundingBox())!.height).toBeGreaterThan(clamped + 30)

	// a JSON answer reads as fields, not as JSON
	const profile = results.getByTestId('result-row').first().getByRole('cell').nth(3)
	await expect(profile).not.toContainText('{')
	// (in jsonb's order of the keys: shorter first)
	await expect(profile.getByRole('term')).toHaveText(['offices', 'industry', 'employees'])
	await expect(profile.getByRole('definition')).toHaveText(['Berlin, Lisbon', 'Software', '120'])
})

test('"Which leads" stays folded until a condition is set, and opens itself with one @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const listId = await seedLeadList(email, 'Founders', 3)
	await seedEnrichment(email, {
		name: 'Opener',
		prompt: 'Opener for {{first_name}}',
		outputColumn: 'opener',
	})
	await page.goto(`/lists/${listId}/enrich`)
	await pageSettled(page)
	const form = page.locator('form#run')
	const condition = form.getByRole('group', { name: 'Condition 1' })
	const which = form.locator('summary', { hasText: 'Which leads' })
	await expect(which).toBeVisible()
	await expect(condition).toBeHidden()
	await expect(form.getByLabel('Search')).toBeHidden()
	// opened by hand, with the keyboard
	await which.focus()
	await page.keyboard.press('Enter')
	await expect(condition).toBeVisible()

	// a page opened with a filter (the list page's "Enrich these 3 leads") shows it open
	await page.goto(`/lists/${listId}/enrich?q=lead1`)
	await pageSettled(page)
	await expect(form.getByLabel('Search')).toBeVisible()
	await expect(form.getByLabel('Search')).toHaveValue('lead1')
	await expect(which).toContainText('search “lead1”')
})
