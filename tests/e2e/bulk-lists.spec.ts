import { expect, test, type Page, type TestInfo } from '@playwright/test'
import { accountOf } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'
import { chooseOption } from './ui-support.ts'

// Issue 34: bulk actions on the lists of /scrape (DataTable v2: sort, tick, delete with the
// reasons, export as one CSV) and on a list page's leads (move with both counts, export of the
// matching leads), with JavaScript on and off.
test.describe.configure({ timeout: 120_000 })

const tagOf = () => `t${Math.random().toString(36).slice(2, 8)}`

/** A finished lead list of the account's first workspace with these emails; its id. */
async function seedList(email: string, name: string, emails: string[]) {
	const { userId, workspaceId } = await accountOf(email)
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into processing_list (user_id, workspace_id, name, source_type, status, found)
			values ($1, $2, $3, 'upload', 2, $4) returning id`,
			[userId, workspaceId, name, emails.length],
		)
		const listId = rows[0]!.id
		for (const address of emails)
			await client.query(
				`insert into leads (list_id, user_id, workspace_id, email) values ($1, $2, $3, $4)`,
				[listId, userId, workspaceId, address],
			)
		return { listId, userId }
	})
}

async function waitDone(page: Page, testInfo: TestInfo) {
	const progress = page.getByTestId('bulk-progress')
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 1_000 })
	}).toPass({ timeout: 30_000 })
}

async function listNames(page: Page) {
	return page
		.locator('table[data-testid="lists"] tbody tr th a')
		.evaluateAll((links) => links.map((a) => a.textContent))
}

test('the lists table sorts by a column link, and bulk delete refuses a list with a running enrichment @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const busy = await seedList(email, `${tag} Bravo`, [`b@${tag}.com`])
	await seedList(email, `${tag} Alpha`, [`a@${tag}.com`])
	await seedList(email, `${tag} Charlie`, [`c@${tag}.com`])
	await withDatabase((client) =>
		client.query(
			`insert into enrichment_runs (user_id, list_id, name, steps, key_kind, status)
			values ($1, $2, 'Running', '[]', 'ownKey', 1)`,
			[busy.userId, busy.listId],
		),
	)
	await page.goto('/scrape')
	const heading = page.getByRole('columnheader', { name: /List/ })
	await heading.getByRole('link').click()
	await expect(heading).toHaveAttribute('aria-sort', 'ascending')
	expect(await listNames(page)).toEqual([`${tag} Alpha`, `${tag} Bravo`, `${tag} Charlie`])

	if (jsEnabled(testInfo)) {
		await page.getByRole('checkbox', { name: 'Select all rows on this page' }).check()
		await expect(page.getByTestId('selected-count')).toHaveText('3 selected')
	} else {
		for (const name of ['Alpha', 'Bravo', 'Charlie'])
			await page.getByRole('checkbox', { name: `Select ${tag} ${name}` }).check()
	}
	await chooseOption(page, page, 'Bulk action', 'Delete')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page).toHaveURL(/\/scrape\?bulk=/)
	await waitDone(page, testInfo)
	await expect(page.getByTestId('bulk-counts')).toHaveText('2 done · 1 skipped · 0 failed')
	await expect(page.getByTestId('bulk-notes')).toContainText(
		`${tag} Bravo: An enrichment is running on this list`,
	)
	expect(await listNames(page)).toEqual([`${tag} Bravo`])
})

test('the ticked lists download as one CSV with a list column @no-js', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	await seedList(email, `${tag} One`, [`one@${tag}.com`])
	await seedList(email, `${tag} Two`, [`two@${tag}.com`])
	await page.goto('/scrape')
	await page.getByRole('checkbox', { name: `Select ${tag} One` }).check()
	await page.getByRole('checkbox', { name: `Select ${tag} Two` }).check()
	await chooseOption(page, page, 'Bulk action', 'Export CSV')
	const [download] = await Promise.all([
		page.waitForEvent('download'),
		page.getByRole('button', { name: 'Apply' }).click(),
	])
	const csv = await streamText(await download.createReadStream())
	const lines = csv.replace('\uFEFF', '').trim().split('\n')
	expect(lines[0]).toMatch(/^list,email,/)
	expect(
		lines
			.slice(1)
			.map((l) => l.split(',').slice(0, 2).join(','))
			.sort(),
	).toEqual([`${tag} One,one@${tag}.com`, `${tag} Two,two@${tag}.com`])
})

test("bulk move of a list's ticked leads changes both lists' counts @no-js", async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const from = await seedList(email, `${tag} From`, [
		`a@${tag}.com`,
		`b@${tag}.com`,
		`c@${tag}.com`,
	])
	const to = await seedList(email, `${tag} To`, [`z@${tag}.com`])
	await page.goto(`/lists/${from.listId}`)
	await expect(page.getByTestId('lead-count')).toHaveText('3 leads')
	await page.getByRole('checkbox', { name: `Select a@${tag}.com` }).check()
	await page.getByRole('checkbox', { name: `Select b@${tag}.com` }).check()
	if (jsEnabled(testInfo)) {
		await expect(page.getByTestId('selected-count')).toHaveText('2 selected')
		// another account's lead, slipped into the form: skipped and reported, never moved
		const theirs = await seedList((await subscribedOther(page)).email, 'Theirs', [`x@${tag}.com`])
		const theirLead = await withDatabase(async (client) => {
			const { rows } = await client.query<{ id: string }>(
				'select id from leads where list_id = $1',
				[theirs.listId],
			)
			return rows[0]!.id
		})
		await page.evaluate((id) => {
			const box = document.createElement('input')
			Object.assign(box, { type: 'hidden', name: 'ids', value: id })
			box.setAttribute('form', 'leads-bulk')
			document.body.append(box)
		}, theirLead)
	}
	await chooseOption(page, page, 'Bulk action', `Move to ${tag} To`)
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page).toHaveURL(/bulk=/)
	await waitDone(page, testInfo)
	await expect(page.getByTestId('bulk-counts')).toHaveText(
		jsEnabled(testInfo) ? '2 done · 1 skipped · 0 failed' : '2 done · 0 skipped · 0 failed',
	)
	if (jsEnabled(testInfo))
		await expect(page.getByTestId('bulk-notes')).toContainText('not found in your account')
	await expect(page.getByTestId('lead-count')).toHaveText('1 lead')
	await page.goto(`/lists/${to.listId}`)
	await expect(page.getByTestId('lead-count')).toHaveText('3 leads')
	await expect(page.getByTestId('lead-row')).toHaveCount(3)
})

test('all leads matching the search download as CSV, and bulk delete takes them @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const list = await seedList(email, `${tag} Mixed`, [
		`${tag}1@example.com`,
		`${tag}2@example.com`,
		`keep@${tag}.com`,
	])
	await page.goto(`/lists/${list.listId}?q=${tag}`)
	await chooseOption(page, page, 'Bulk action', 'Export CSV')
	await page.getByRole('radio', { name: 'All 2 leads matching this filter' }).check()
	const [download] = await Promise.all([
		page.waitForEvent('download'),
		page.getByRole('button', { name: 'Apply' }).click(),
	])
	const csv = await streamText(await download.createReadStream())
	expect(csv).toContain(`${tag}1@example.com`)
	expect(csv).toContain(`${tag}2@example.com`)
	expect(csv).not.toContain(`keep@${tag}.com`)

	await page.goto(`/lists/${list.listId}?q=${tag}`)
	await chooseOption(page, page, 'Bulk action', 'Delete')
	await page.getByRole('radio', { name: 'All 2 leads matching this filter' }).check()
	await page.getByRole('button', { name: 'Apply' }).click()
	await waitDone(page, testInfo)
	await expect(page.getByTestId('bulk-counts')).toHaveText('2 done · 0 skipped · 0 failed')
	await expect(page.getByTestId('lead-count')).toHaveText('1 lead')
})

/** A second account (signed up in a fresh context, so the page stays signed in as the first). */
async function subscribedOther(page: Page) {
	const context = await page.context().browser()!.newContext()
	const other = await context.newPage()
	try {
		return await subscribedAccount(other)
	} finally {
		await context.close()
	}
}

async function streamText(stream: NodeJS.ReadableStream) {
	const chunks: Buffer[] = []
	for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer))
	return Buffer.concat(chunks).toString('utf8')
}

/** A finished company list of the account's first workspace with these company names; its id. */
async function seedCompanies(email: string, name: string, companies: string[]) {
	const { userId, workspaceId } = await accountOf(email)
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into company_scraping_list (user_id, workspace_id, name, source_type, status, found)
			values ($1, $2, $3, 'domains', 2, $4) returning id`,
			[userId, workspaceId, name, companies.length],
		)
		const listId = rows[0]!.id
		for (const company of companies)
			await client.query(
				`insert into companies (list_id, user_id, workspace_id, name, domain) values ($1, $2, $3, $4, $5)`,
				[listId, userId, workspaceId, company, `${company.toLowerCase()}.com`],
			)
		return { listId, userId }
	})
}

// decision 0101: a list's table is DataTable v2 with its keyset pages
test("a list's leads table sorts by its headings, pages on by Next and hides a column for this user @no-js", async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const emails = Array.from({ length: 55 }, (_, i) => `${String(i).padStart(2, '0')}@${tag}.com`)
	const list = await seedList(email, `${tag} Long`, emails)
	await page.goto(`/lists/${list.listId}`)
	await expect(page.getByTestId('lead-row')).toHaveCount(50)
	await page.getByRole('link', { name: /^Email\s*, sort$/ }).click()
	await expect(page.getByRole('columnheader', { name: /^Email\s*, sorted/ })).toHaveAttribute(
		'aria-sort',
		'ascending',
	)
	await expect(page.getByTestId('lead-row').first()).toContainText(`00@${tag}.com`)
	await page.getByRole('link', { name: 'Next' }).click()
	await expect(page.getByTestId('page-status')).toHaveText('51–55 of 55')
	await expect(page.getByTestId('lead-row')).toHaveCount(5)
	await expect(page.getByTestId('lead-row').first()).toContainText(`50@${tag}.com`)
	// the other way round, from its heading: the cursor is dropped, the first page again
	await page.getByRole('link', { name: /^Email\s*, sorted ascending/ }).click()
	await expect(page.getByTestId('page-status')).toHaveText('1–50 of 55')
	await expect(page.getByTestId('lead-row').first()).toContainText(`54@${tag}.com`)

	await page.getByTestId('column-chooser').locator('summary').click()
	await page.getByRole('checkbox', { name: 'Phone' }).uncheck()
	await page.getByRole('button', { name: 'Save columns' }).click()
	await expect(page.getByRole('columnheader', { name: 'Phone' })).toHaveCount(0)
	await expect(page.getByRole('columnheader', { name: 'Location' })).toBeVisible()
	// the bulk form's checkboxes are the table's
	await page.getByRole('checkbox', { name: `Select 54@${tag}.com` }).check()
})

test("a company list's ticked companies are deleted, and all matching its search export as CSV @no-js", async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const list = await seedCompanies(email, `${tag} Companies`, ['Acme', 'Acorn', 'Bolt', 'Crane'])
	await page.goto(`/company-lists/${list.listId}`)
	await expect(page.getByTestId('company-row')).toHaveCount(4)
	await page.getByRole('checkbox', { name: 'Select Bolt' }).check()
	await page.getByRole('checkbox', { name: 'Select Crane' }).check()
	await chooseOption(page, page, 'Bulk action', 'Delete')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page).toHaveURL(/bulk=/)
	await waitDone(page, testInfo)
	await expect(page.getByTestId('bulk-counts')).toHaveText('2 done · 0 skipped · 0 failed')
	await expect(page.getByTestId('company-count')).toHaveText('2 companies')
	await expect(page.getByTestId('company-row')).toHaveCount(2)

	await page.goto(`/company-lists/${list.listId}?q=acm`)
	await chooseOption(page, page, 'Bulk action', 'Export CSV')
	await page.getByRole('radio', { name: 'All 1 companies matching this filter' }).check()
	const [download] = await Promise.all([
		page.waitForEvent('download'),
		page.getByRole('button', { name: 'Apply' }).click(),
	])
	const csv = await streamText(await download.createReadStream())
	expect(csv).toContain('Acme')
	expect(csv).not.toContain('Acorn')
})
