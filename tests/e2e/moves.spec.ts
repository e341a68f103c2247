// Issue 16, points 3 and 10: moving things between workspaces comes back to the page it
// started from (a modal with JavaScript, a page without); deleting a list asks first; toasts
// stay under an open dropdown on a phone; a CSV's bad domain is named by its line.
import { expect as baseExpect, test, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, pageSettled, withDatabase } from './support.ts'

// A busy machine answers slowly: wait for what a user waits for, up to 30 s.
const expect = baseExpect.configure({ timeout: 30_000 })

/** Workspaces Alpha (the current one: first by name) and Beta, and a lead list in Alpha. */
async function twoWorkspaces(email: string) {
	return withDatabase(async (db) => {
		const userId = (await db.query('select id from auth.users where email = $1', [email])).rows[0]
			.id as string
		const workspace = async (name: string) =>
			(
				await db.query('insert into workspaces (user_id, name) values ($1, $2) returning id', [
					userId,
					name,
				])
			).rows[0].id as string
		const alpha = await workspace('Alpha')
		const beta = await workspace('Beta')
		const list = (
			await db.query(
				`insert into processing_list (user_id, workspace_id, name, source_type, status, requested, found, progress)
				values ($1, $2, 'Moving leads', 'upload', 2, 3, 3, 100) returning id`,
				[userId, alpha],
			)
		).rows[0].id as string
		return { userId, alpha, beta, list }
	})
}

/** Opens the move step of a row (the modal, or the page without JavaScript) and moves it to Beta. */
async function moveToBeta(page: Page, row: ReturnType<Page['locator']>, name: string) {
	const js = jsEnabled(test.info())
	// a link either way: the page without JavaScript, the modal with (its code loaded on first use);
	// a click before hydration follows the link to the page instead
	await pageSettled(page)
	await row.getByRole('link', { name: `Move ${name}` }).click()
	const step = js ? page.getByRole('dialog') : page.locator('main')
	if (!js) await expect(page).toHaveURL(/\/attach-workspace\?/)
	await expect(step.getByTestId('current-workspace')).toContainText('Alpha')
	await step.getByLabel('Move it to').selectOption({ label: 'Beta' })
	await step.getByRole('button', { name: 'Move', exact: true }).click()
}

test('a list, a domain and an inbox order move to another workspace and the page comes back @no-js', async ({
	page,
}) => {
	test.setTimeout(120_000)
	const { email } = await subscribedAccount(page)
	const { userId, alpha, beta, list } = await twoWorkspaces(email)
	const { domain, order } = await withDatabase(async (db) => {
		const domain = (
			await db.query(
				`insert into domains (user_id, workspace_id, name, source) values ($1, $2, $3, 'imported')
				returning id`,
				[userId, alpha, `move-${userId.slice(0, 8)}.com`],
			)
		).rows[0].id as string
		const order = (
			await db.query(
				`insert into inbox_orders (user_id, workspace_id, provider, inboxes_per_domain, domain_ids,
					total_cents, price_cents, quantity, status, billing_status, billing_provider)
				values ($1, $2, 'google', 2, array[$3::uuid], 600, 300, 2, 0, 'active', 'test') returning id`,
				[userId, alpha, domain],
			)
		).rows[0].id as string
		return { domain, order }
	})
	const workspaceOf = (table: string, id: string) =>
		withDatabase(
			async (db) =>
				(await db.query(`select workspace_id from ${table} where id = $1`, [id])).rows[0]
					.workspace_id as string,
		)

	// a lead list, from /scrape: back on /scrape (not the 404 screen), where Alpha no longer shows it
	await page.goto('/scrape')
	await moveToBeta(
		page,
		page.getByTestId('scrape-row').filter({ hasText: 'Moving leads' }),
		'Moving leads',
	)
	await expect(page.getByText('Moved “Moving leads” to “Beta”')).toBeVisible()
	await expect(page).toHaveURL(/\/scrape$/)
	await expect(page.getByRole('heading', { name: 'Scrape', level: 1 })).toBeVisible()
	await expect(page.getByTestId('scrape-row').filter({ hasText: 'Moving leads' })).toHaveCount(0)
	expect(await workspaceOf('processing_list', list)).toBe(beta)

	// a domain, from /domains
	const domainName = `move-${userId.slice(0, 8)}.com`
	await page.goto('/domains')
	const domainRow = page.locator(`tr[data-domain="${domainName}"]`)
	await moveToBeta(page, domainRow, domainName)
	await expect(page.getByText(`Moved “${domainName}” to “Beta”`)).toBeVisible()
	await expect(page).toHaveURL(/\/domains$/)
	await expect(domainRow.getByRole('cell', { name: 'Beta' })).toBeVisible()
	expect(await workspaceOf('domains', domain)).toBe(beta)

	// an inbox order, from /inboxes filtered by status: the filter is kept
	await page.goto('/inboxes?status=active')
	const orderRow = page.getByTestId('inbox-order')
	// the order's name, as its Move control names it (the row starts with its status badge)
	const moveOrder = orderRow.getByRole('link', { name: /^Move / })
	const orderName = (await moveOrder.evaluate(
		(el) => el.getAttribute('aria-label') ?? el.textContent ?? '',
	))!.replace(/^Move\s*/, '')
	await moveToBeta(page, orderRow, orderName)
	await expect(page.getByText(`Moved “${orderName}” to “Beta”`)).toBeVisible()
	await expect(page).toHaveURL(/\/inboxes\?status=active$/)
	await expect(orderRow.getByTestId('order-workspace')).toHaveText('Beta')
	expect(await workspaceOf('inbox_orders', order)).toBe(beta)
})

test('on a phone, deleting a list asks first, and its toast stays under the open menu @no-js', async ({
	page,
}, testInfo) => {
	await page.setViewportSize({ width: 390, height: 700 })
	const { email } = await subscribedAccount(page)
	await twoWorkspaces(email)
	await page.goto('/scrape')
	const row = page.getByTestId('scrape-row').filter({ hasText: 'Moving leads' })
	// the first press only asks
	await row.locator('summary', { hasText: 'Delete' }).click()
	await expect(row.getByText('“Moving leads” is deleted with its 3 leads.')).toBeVisible()
	await expect(row).toHaveCount(1)
	await row.getByRole('button', { name: 'Delete “Moving leads”' }).click()
	const toast = page
		.locator('[data-sonner-toast]')
		.or(page.getByTestId('flash'))
		.filter({ hasText: '“Moving leads” deleted' })
	await expect(toast).toBeVisible()
	await expect(row).toHaveCount(0)

	// the navigation opened while the toast shows: the toast does not cover it (a modal sheet
	// with JavaScript, the same links in place without)
	const navigation = page.getByTestId('mobile-navigation')
	if (jsEnabled(testInfo)) await page.getByRole('button', { name: 'Open navigation' }).click()
	else await navigation.locator('summary').click()
	const menu = jsEnabled(testInfo)
		? page.getByRole('dialog', { name: 'Leadsmith' })
		: navigation.locator(':scope > div')
	await expect(menu).toBeVisible()
	const box = (await toast.boundingBox())!
	const menuBox = (await menu.boundingBox())!
	// the menu reaches down to where the toast is (else this proves nothing)
	expect(menuBox.y + menuBox.height).toBeGreaterThan(box.y + box.height / 2)
	const onTop = await page.evaluate(
		([x, y]) => {
			const hit = document.elementFromPoint(x!, y!)
			return Boolean(hit?.closest('details[open], [role="dialog"]'))
		},
		[box.x + box.width / 2, box.y + box.height / 2],
	)
	expect(onTop).toBe(true)
})

test('a CSV of company domains with a bad one names its line in the file @no-js', async ({
	page,
}) => {
	await subscribedAccount(page, { credits: 100 })
	await page.goto('/create-companies')
	await page.getByLabel('List name').fill('From a file')
	await page.getByLabel('Or a CSV file').setInputFiles({
		name: 'targets.csv',
		mimeType: 'text/csv',
		// the header is line 1, a blank line 3: the bad domain is on line 4
		buffer: Buffer.from('Company,Website\nAcme,acme.io\n\nBeta,not_a\n'),
	})
	await page.getByLabel('Credits').check()
	await page.getByRole('button', { name: 'Create company list' }).click()
	await expect(page.getByText('line 4: “not_a”')).toBeVisible()
	await expect(page).toHaveURL(/\/create-companies/)
})
