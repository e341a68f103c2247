import { expect, test, type Page, type TestInfo } from '@playwright/test'
import { accountOf } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'
import { chooseOption } from './ui-support.ts'

// Issue 34: the inbox orders and the pending invitations on the one data table, with bulk
// cancel / resend / revoke as jobs with progress, JavaScript on and off; the domains table's
// row actions in view at 1280 px.
test.describe.configure({ timeout: 120_000 })

async function tick(page: Page, testInfo: TestInfo, labels: string[]) {
	if (jsEnabled(testInfo)) {
		await page.getByRole('checkbox', { name: 'Select all rows on this page' }).check()
		await expect(page.getByTestId('selected-count')).toHaveText(`${labels.length} selected`)
	} else {
		for (const label of labels)
			await page.getByRole('checkbox', { name: `Select ${label}` }).check()
	}
}

async function waitDone(page: Page, testInfo: TestInfo) {
	const progress = page.getByTestId('bulk-progress')
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 1_000 })
	}).toPass({ timeout: 30_000 })
}

test('bulk cancel of inbox orders: the waiting one cancelled and refunded, the started one skipped @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const { userId, workspaceId } = await accountOf(email)
	const ids = await withDatabase(async (client) => {
		const out: string[] = []
		// two, three inboxes: names that differ, as a user tells them apart
		for (const [status, inboxes] of [
			[0, 2],
			[1, 3],
		]) {
			const { rows } = await client.query<{ id: string }>(
				`insert into inbox_orders (user_id, workspace_id, provider, inboxes_per_domain, status, total_cents, created_at)
				values ($1, $2, 'google', $4, $3, 1200, now()) returning id`,
				[userId, workspaceId, status, inboxes],
			)
			out.push(rows[0]!.id)
		}
		return out
	})
	await page.goto('/inboxes')
	const table = page.getByTestId('inbox-orders')
	await expect(table.getByTestId('inbox-order')).toHaveCount(2)
	const names = await table
		.locator('tbody th[scope=row]')
		.evaluateAll((cells) => cells.map((c) => c.textContent ?? ''))
	await tick(page, testInfo, names)
	await chooseOption(page, page, 'Bulk action', 'Cancel (waiting for setup only)')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page).toHaveURL(/\/inboxes\?bulk=/)
	await waitDone(page, testInfo)
	await expect(page.getByTestId('bulk-counts')).toHaveText('1 done · 1 skipped · 0 failed')
	await expect(page.getByTestId('bulk-notes')).toContainText(
		'its setup has started; ask us to cancel it',
	)
	await expect(table.getByTestId('inbox-order').filter({ hasText: 'failed' })).toHaveCount(1)
	await expect(table.getByTestId('inbox-order').filter({ hasText: 'being set up' })).toHaveCount(1)
	const states = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string; status: number; refunded: boolean }>(
			'select id, status, refunded_at is not null as refunded from inbox_orders where id = any($1)',
			[ids],
		)
		return Object.fromEntries(rows.map((r) => [r.id, [r.status, r.refunded]]))
	})
	expect(states[ids[0]!]).toEqual([3, true])
	expect(states[ids[1]!]).toEqual([1, false])
})

test('bulk revoke of pending invitations, then none pending @no-js', async ({ page }, testInfo) => {
	const { email } = await subscribedAccount(page)
	const { userId } = await accountOf(email)
	const invitees = [1, 2].map(
		(n) => `inv${n}-${Math.random().toString(36).slice(2, 8)}@example.com`,
	)
	await withDatabase(async (client) => {
		for (const invitee of invitees)
			await client.query(
				`insert into team_members (user_id, email, role, status, expires_at)
				values ($1, $2, 'editor', 'invited', now() + interval '7 days')`,
				[userId, invitee],
			)
	})
	await page.goto('/team-members')
	await expect(page.getByTestId('invitation')).toHaveCount(2)
	await tick(page, testInfo, invitees)
	await chooseOption(page, page, 'Bulk action', 'Revoke')
	await page.getByRole('button', { name: 'Apply' }).click()
	await expect(page).toHaveURL(/\/team-members\?bulk=/)
	await waitDone(page, testInfo)
	await expect(page.getByTestId('bulk-counts')).toHaveText('2 done · 0 skipped · 0 failed')
	await page.goto('/team-members')
	await expect(page.getByText('No pending invitations')).toBeVisible()
})

test("a double submit of the invitations' bulk form starts one job", async ({ page }) => {
	const { email } = await subscribedAccount(page)
	const { userId } = await accountOf(email)
	await withDatabase((client) =>
		client.query(
			`insert into team_members (user_id, email, role, status, expires_at)
			values ($1, $2, 'editor', 'invited', now() + interval '7 days')`,
			[userId, `twice-${Math.random().toString(36).slice(2, 8)}@example.com`],
		),
	)
	await page.goto('/team-members')
	const form = page.locator('form[aria-label="Bulk actions on invitations"]')
	const body = await form.evaluate((el) => {
		const data = new FormData(el as HTMLFormElement)
		data.set('action', 'resend')
		data.set('scope', 'all')
		return new URLSearchParams(data as never).toString()
	})
	const send = () =>
		page.request.post('/team-members', {
			data: body,
			headers: {
				'Content-Type': 'application/x-www-form-urlencoded',
				Origin: new URL(page.url()).origin,
			},
			maxRedirects: 0,
		})
	const [a, b] = await Promise.all([send(), send()])
	expect(a.headers().location).toMatch(/\/team-members\?bulk=/)
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

test('at 1280 px the row actions of a domain are in view, at the right edge of the table', async ({
	page,
}) => {
	await page.setViewportSize({ width: 1280, height: 900 })
	const { email } = await subscribedAccount(page)
	const { userId, workspaceId } = await accountOf(email)
	const name = `a-rather-long-sending-domain-name-${Math.random().toString(36).slice(2, 8)}.com`
	await withDatabase((client) =>
		client.query(
			`insert into domains (user_id, workspace_id, name, source, dns_checked_at, dns)
			values ($1, $2, $3, 'imported', now(), '{"mx":["mx.example.com"],"spf":"v=spf1 -all","dmarc":"v=DMARC1; p=none","forwarding":{"ok":false,"found":[]},"errors":[]}')`,
			[userId, workspaceId, name],
		),
	)
	await page.goto('/domains')
	const row = page.locator(`tr[data-domain="${name}"]`)
	const button = row.getByRole('button', { name: `Check DNS of ${name}` })
	await expect(button).toBeInViewport({ ratio: 1 })
	const region = await page.getByRole('region', { name: 'Domains' }).boundingBox()
	const box = await button.boundingBox()
	expect(box!.x + box!.width).toBeLessThanOrEqual(region!.x + region!.width)
})
