import { expect, test, type Page } from '@playwright/test'
import { accountOf } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, pageSettled, withDatabase } from './support.ts'
import { chooseOption } from './ui-support.ts'

// Issue 34 point 2: the data table (sorting, columns remembered, density) and bulk actions with
// progress, on /domains, with JavaScript on and off.
test.describe.configure({ timeout: 120_000 })

/** Domains of the account named `${tag}-${name}.com`, in its first workspace; returns their ids. */
async function seedDomains(email: string, tag: string, names: string[]) {
	const { userId, workspaceId } = await accountOf(email)
	return withDatabase(async (client) => {
		const ids: string[] = []
		for (const name of names) {
			const { rows } = await client.query<{ id: string }>(
				`insert into domains (user_id, workspace_id, name, source, dns_checked_at, dns)
				values ($1, $2, $3, 'imported', now(), '{"mx":[],"spf":null,"dmarc":null,"forwarding":{"ok":false,"found":[]},"errors":[]}')
				returning id`,
				[userId, workspaceId, `${tag}-${name}.com`],
			)
			ids.push(rows[0]!.id)
		}
		return { ids, userId, workspaceId }
	})
}

const tagOf = () => `t${Math.random().toString(36).slice(2, 8)}`

async function domainNames(page: Page) {
	return page
		.locator('table[data-testid="domains"] tbody tr')
		.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-domain')))
}

test('sorting by a column is a link that keeps the filter, with aria-sort @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	await seedDomains(email, tag, ['bravo', 'alpha', 'charlie'])
	await page.goto(`/domains?q=${tag}`)
	const heading = page.getByRole('columnheader', { name: /Domain/ })
	await expect(heading).not.toHaveAttribute('aria-sort')
	await heading.getByRole('link').click()
	await expect(page).toHaveURL(new RegExp(`q=${tag}.*sort=name&dir=asc`))
	await expect(heading).toHaveAttribute('aria-sort', 'ascending')
	expect(await domainNames(page)).toEqual([
		`${tag}-alpha.com`,
		`${tag}-bravo.com`,
		`${tag}-charlie.com`,
	])
	await heading.getByRole('link').click()
	await expect(heading).toHaveAttribute('aria-sort', 'descending')
	await expect
		.poll(() => domainNames(page))
		.toEqual([`${tag}-charlie.com`, `${tag}-bravo.com`, `${tag}-alpha.com`])
})

test('the columns and density chosen are remembered after a reload @no-js', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	await seedDomains(email, tagOf(), ['one'])
	await page.goto('/domains')
	const table = page.getByTestId('domains')
	// hidden until chosen (the table fits at 1280 px): Forwarding and Added
	await expect(table.getByRole('columnheader', { name: 'Forwarding' })).toHaveCount(0)
	await expect(table.getByRole('columnheader', { name: 'Subscription' })).toBeVisible()
	await page.getByTestId('column-chooser').locator('summary').click()
	await page.getByRole('checkbox', { name: 'Subscription' }).uncheck()
	await page.getByRole('radio', { name: 'compact' }).check()
	await page.getByRole('button', { name: 'Save columns' }).click()
	await expect(page.getByText('Table settings saved')).toBeVisible()
	await expect(table.getByRole('columnheader', { name: 'Subscription' })).toHaveCount(0)
	await page.reload()
	await expect(table.getByRole('columnheader', { name: 'Workspace' })).toBeVisible()
	await expect(table.getByRole('columnheader', { name: 'Subscription' })).toHaveCount(0)
	await expect(table).toHaveAttribute('data-density', 'compact')
})

test('bulk delete of ticked domains: a job with progress, the paid one refused with its reason @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const { ids, userId } = await seedDomains(email, tag, ['keep', 'gone1', 'gone2'])
	await withDatabase((client) =>
		client.query(
			`insert into domain_subscriptions (user_id, domain_id, status, price_cents, billing_date, expire_date)
			values ($1, $2, 'active', 1500, now(), now() + interval '30 days')`,
			[userId, ids[0]],
		),
	)
	await page.goto(`/domains?q=${tag}`)
	if (jsEnabled(testInfo)) {
		// the heading checkbox selects the page; the toolbar counts
		await page.getByRole('checkbox', { name: 'Select all rows on this page' }).check()
		await expect(page.getByTestId('selected-count')).toHaveText('3 selected')
	} else {
		for (const name of ['keep', 'gone1', 'gone2'])
			await page.getByRole('checkbox', { name: `Select ${tag}-${name}.com` }).check()
	}
	await chooseOption(page, page, 'Bulk action', 'Delete')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page).toHaveURL(/\/domains\?bulk=/)
	const progress = page.getByTestId('bulk-progress')
	await expect(progress).toBeVisible()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 1_000 })
	}).toPass({ timeout: 30_000 })
	await expect(page.getByTestId('bulk-counts')).toHaveText('2 done · 1 skipped · 0 failed')
	await expect(page.getByTestId('bulk-notes')).toContainText(
		`${tag}-keep.com: ${tag}-keep.com cannot be deleted: it has a live subscription`,
	)
	await expect(page.locator(`tr[data-domain="${tag}-keep.com"]`)).toBeVisible()
	await expect(page.locator(`tr[data-domain="${tag}-gone1.com"]`)).toHaveCount(0)
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)
})

test('a bulk move of all domains matching the filter, not only the ticked ones @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const { userId } = await seedDomains(email, tag, ['m1', 'm2'])
	await seedDomains(email, tagOf(), ['elsewhere'])
	const beta = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into workspaces (user_id, name) values ($1, 'Beta') returning id`,
			[userId],
		)
		return rows[0]!.id
	})
	await page.goto(`/domains?q=${tag}`)
	await chooseOption(page, page, 'Bulk action', 'Move to Beta')
	await page.getByRole('radio', { name: 'All 2 domains matching this filter' }).check()
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page.getByText('Move to workspace: 2 domains queued')).toBeVisible()
	await expect(async () => {
		await page.reload()
		await expect(page.getByTestId('bulk-counts')).toHaveText('2 done · 0 skipped · 0 failed', {
			timeout: 1_000,
		})
	}).toPass({ timeout: 30_000 })
	const moved = await withDatabase(async (client) => {
		const { rows } = await client.query<{ name: string; workspace_id: string }>(
			'select name, workspace_id from domains where user_id = $1 order by name',
			[userId],
		)
		return rows
	})
	expect(moved.filter((r) => r.workspace_id === beta).map((r) => r.name)).toEqual([
		`${tag}-m1.com`,
		`${tag}-m2.com`,
	])
})

test('a double submit of the bulk form starts one job', async ({ page }) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const { userId } = await seedDomains(email, tag, ['d1', 'd2'])
	await page.goto(`/domains?q=${tag}`)
	const form = page.locator('form[aria-label="Bulk actions on domains"]')
	// the same form sent twice at once, as a double click without JavaScript would
	const body = await form.evaluate((el) => {
		const data = new FormData(el as HTMLFormElement)
		data.set('action', 'check-dns')
		data.set('scope', 'all')
		return new URLSearchParams(data as never).toString()
	})
	const send = () =>
		page.request.post('/domains', {
			data: body,
			headers: {
				'Content-Type': 'application/x-www-form-urlencoded',
				Origin: new URL(page.url()).origin,
			},
			maxRedirects: 0,
		})
	const [a, b] = await Promise.all([send(), send()])
	expect(a.headers().location).toMatch(/\/domains\?bulk=/)
	expect(b.headers().location).toBe(a.headers().location)
	const count = await withDatabase(async (client) => {
		const { rows } = await client.query<{ n: string }>(
			'select count(*) as n from bulk_actions where user_id = $1',
			[userId],
		)
		return Number(rows[0]!.n)
	})
	expect(count).toBe(1)
})

test('an international domain shows in Unicode with its punycode on hover; no GMT date', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const { userId, workspaceId } = await accountOf(email)
	await withDatabase((client) =>
		client.query(
			`insert into domains (user_id, workspace_id, name, source, dns_checked_at, dns)
			values ($1, $2, 'xn--mnchen-3ya.com', 'imported', now(), '{"mx":[],"spf":null,"dmarc":null,"forwarding":{"ok":false,"found":[]},"errors":[]}')
			on conflict do nothing`,
			[userId, workspaceId],
		),
	)
	await page.goto('/domains')
	const row = page.locator('tr[data-domain="xn--mnchen-3ya.com"]')
	await expect(row.getByRole('rowheader')).toContainText('münchen.com')
	await expect(row.locator('[data-punycode="xn--mnchen-3ya.com"]')).toHaveAttribute(
		'title',
		'xn--mnchen-3ya.com',
	)
	await expect(page.getByTestId('domains')).not.toContainText('GMT')
	// names and buttons stay on one line
	await expect(row.getByRole('rowheader')).toHaveCSS('white-space', 'nowrap')
	await expect(row.getByRole('cell').last()).toHaveCSS('white-space', 'nowrap')
})

test('deleting one domain asks first; a paid one is refused with the reason @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const tag = tagOf()
	const { ids, userId } = await seedDomains(email, tag, ['paid', 'free'])
	await withDatabase((client) =>
		client.query(
			`insert into domain_subscriptions (user_id, domain_id, status, price_cents, billing_date, expire_date)
			values ($1, $2, 'active', 1500, now(), now() + interval '30 days')`,
			[userId, ids[0]],
		),
	)
	await page.goto(`/domains?q=${tag}`)
	const toast = (text: string) =>
		page.locator('[data-sonner-toast]').or(page.getByTestId('flash')).filter({ hasText: text })
	const remove = async (name: string) => {
		// a click before hydration opens the native fallback, which hydration then closes
		await pageSettled(page)
		const row = page.locator(`tr[data-domain="${tag}-${name}.com"]`)
		await row.locator('summary, button', { hasText: 'Delete' }).first().click()
		await page.getByRole('button', { name: 'Delete domain' }).click()
	}
	await remove('paid')
	await expect(
		toast(`${tag}-paid.com cannot be deleted: it has a live subscription; cancel it first.`),
	).toBeVisible()
	await expect(page.locator(`tr[data-domain="${tag}-paid.com"]`)).toBeVisible()
	await remove('free')
	await expect(toast(`${tag}-free.com deleted`)).toBeVisible()
	await expect(page.locator(`tr[data-domain="${tag}-free.com"]`)).toHaveCount(0)
	await expect(page.locator(`tr[data-domain="${tag}-paid.com"]`)).toBeVisible()
})
