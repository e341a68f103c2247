import { expect, test, type Page } from '@playwright/test'
import { accountOf, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import {
	expectNoSeriousA11yViolations,
	jsEnabled,
	pageSettled,
	signIn,
	withDatabase,
} from './support.ts'

// The design system's pieces (app/components/ui/, decision 0079) as a person meets them on the
// screens that use them: with JavaScript the enhanced control (keyboard, screen reader roles),
// without it the native one, which posts the same form.

const ADMIN = { email: 'admin@e2e.test', password: 'admin-password-1' }

/** An account with one active inbox on a subscribed domain, on /inboxes. */
async function accountWithInbox(page: Page) {
	const { email } = await subscribedAccount(page)
	const domain = uniqueDomain('ui')
	const [domainId] = await subscribedDomains(email, [domain])
	const { userId, workspaceId } = await accountOf(email)
	await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string; paid_through: Date }>(
			`insert into inbox_orders (user_id, workspace_id, provider, status, inboxes_per_domain,
				domain_ids, total_cents, billing_provider, price_cents, quantity, billing_date, paid_through)
			values ($1, $2, 'google', 2, 1, array[$3::uuid], 300, 'test', 300, 1, now(),
				now() + interval '20 days')
			returning id, paid_through`,
			[userId, workspaceId, domainId],
		)
		await client.query(
			`insert into inboxes (user_id, workspace_id, order_id, domain_id, provider, address,
				first_name, last_name, status, period_end)
			values ($1, $2, $3, $4, 'google', $5, 'Ada', 'Lovelace', 'active', $6)`,
			[userId, workspaceId, rows[0]!.id, domainId, `ada@${domain}`, rows[0]!.paid_through],
		)
	})
	await page.goto('/inboxes')
	await pageSettled(page)
	return { email, domain }
}

test('select: the keyboard opens the listbox and picks a status, which the filter posts @no-js', async ({
	page,
}, testInfo) => {
	await accountWithInbox(page)
	// the orders table's column chooser has a Status box too
	const status = page
		.getByRole('form', { name: 'Filter inboxes' })
		.getByLabel('Status', { exact: true })
	if (jsEnabled(testInfo)) {
		await expect(status).toHaveRole('combobox')
		await status.focus()
		await page.keyboard.press('Enter')
		const listbox = page.getByRole('listbox')
		await expect(listbox).toBeVisible()
		await expect(listbox.getByRole('option')).toHaveText([
			'Any status',
			'Active',
			'Cancelled at period end',
			'Cancelled',
		])
		await page.keyboard.press('ArrowDown')
		await page.keyboard.press('ArrowDown')
		await page.keyboard.press('Enter')
		await expect(listbox).toBeHidden()
		await expect(status).toHaveText('Cancelled at period end')
		await expect(status).toBeFocused()
		// (while the listbox is open Radix hides the page behind it with aria-hidden, which axe
		// reads as focusable content hidden: the page is checked with the choice made)
		await expectNoSeriousA11yViolations(page)
	} else {
		// the native control as served
		await status.selectOption('cancelling')
	}
	await page.getByRole('button', { name: 'Filter' }).click()
	await page.waitForURL(/status=cancelling/)
	// the active inbox is filtered out, and the control shows the filter it posted
	await expect(page.getByTestId('inboxes-empty')).toBeVisible()
	await pageSettled(page)
	if (jsEnabled(testInfo)) await expect(status).toHaveText('Cancelled at period end')
	else await expect(status).toHaveValue('cancelling')
})

test('menu: the Export menu opens from the keyboard and downloads the CSV @no-js', async ({
	page,
}, testInfo) => {
	const { domain } = await accountWithInbox(page)
	const download = page.waitForEvent('download')
	if (jsEnabled(testInfo)) {
		const trigger = page.getByRole('button', { name: 'Export' })
		await trigger.focus()
		await page.keyboard.press('Enter')
		const menu = page.getByRole('menu', { name: 'Export' })
		await expect(menu).toBeVisible()
		await expect(menu.getByRole('menuitem', { name: 'Export CSV' })).toBeFocused()
		await expectNoSeriousA11yViolations(page)
		await page.keyboard.press('Escape')
		await expect(menu).toBeHidden()
		await expect(trigger).toBeFocused()
		await page.keyboard.press('ArrowDown')
		await expect(menu.getByRole('menuitem', { name: 'Export CSV' })).toBeFocused()
		await page.keyboard.press('Enter')
	} else {
		await page.getByTestId('export-menu').getByText('Export', { exact: true }).click()
		await page.getByRole('link', { name: 'Export CSV' }).click()
	}
	const file = await download
	expect(file.suggestedFilename()).toMatch(/\.csv$/)
	const path = await file.path()
	const { readFile } = await import('node:fs/promises')
	expect(await readFile(path, 'utf8')).toContain(`ada@${domain}`)
})

test('tooltip: the status help shows on keyboard focus and Escape hides it', async ({ page }) => {
	await accountWithInbox(page)
	const help = page.getByRole('button', { name: 'About the statuses' })
	await help.focus()
	const tip = page.getByRole('tooltip')
	await expect(tip).toContainText('Cancelled at period end: works until its paid month ends.')
	await expect(help).toHaveAccessibleDescription(/Active: sending, renews monthly/)
	await page.keyboard.press('Escape')
	await expect(tip).toBeHidden()
})

test('mobile navigation: an icon button opens the navigation, which takes you to a screen @no-js', async ({
	page,
}, testInfo) => {
	await page.setViewportSize({ width: 390, height: 844 })
	await subscribedAccount(page)
	await page.goto('/')
	await pageSettled(page)
	await expect(page.getByText('Menu', { exact: true })).toHaveCount(0)
	if (jsEnabled(testInfo)) {
		const open = page.getByRole('button', { name: 'Open navigation' })
		await open.click()
		const sheet = page.getByRole('dialog', { name: 'Leadsmith' })
		await expect(sheet).toBeVisible()
		await expectNoSeriousA11yViolations(page)
		// Escape closes it and the focus is back on the button
		await page.keyboard.press('Escape')
		await expect(sheet).toBeHidden()
		await expect(open).toBeFocused()
		await page.keyboard.press('Enter')
		await sheet.getByRole('link', { name: 'Workspaces' }).click()
		await page.waitForURL('**/workspaces')
		// following a link closes it
		await expect(sheet).toBeHidden()
	} else {
		await page.locator('summary', { hasText: 'Open navigation' }).click()
		await page
			.getByRole('navigation', { name: 'Main' })
			.getByRole('link', { name: 'Workspaces' })
			.click()
		await page.waitForURL('**/workspaces')
	}
	await expect(page.getByRole('heading', { name: 'Workspaces', level: 1 })).toBeVisible()
})

test('confirm dialog: deleting a workspace asks first; Cancel keeps it @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	const { userId } = await accountOf(email)
	await withDatabase((client) =>
		client.query(`insert into workspaces (user_id, name) values ($1, 'Spare')`, [userId]),
	)
	await page.goto('/workspaces')
	await pageSettled(page)
	const spare = page.getByTestId('workspace').filter({ hasText: 'Spare' })
	if (jsEnabled(testInfo)) {
		const trigger = spare.getByRole('button', { name: 'Delete Spare' })
		await trigger.click()
		const dialog = page.getByRole('alertdialog', { name: 'Delete “Spare”?' })
		await expect(dialog).toBeVisible()
		await expect(dialog).toContainText('Only an empty workspace can be deleted.')
		await expectNoSeriousA11yViolations(page)
		await dialog.getByRole('button', { name: 'Cancel' }).click()
		await expect(dialog).toBeHidden()
		await expect(trigger).toBeFocused()
		await expect(spare).toBeVisible()
		await trigger.click()
		await dialog.getByRole('button', { name: 'Delete “Spare”' }).click()
	} else {
		await spare.getByText('Delete Spare').click()
		await spare.getByRole('button', { name: 'Delete “Spare”' }).click()
	}
	await expect(page.getByText('Workspace “Spare” deleted')).toBeVisible()
	await expect(page.getByTestId('workspace').filter({ hasText: 'Spare' })).toHaveCount(0)
})

test('file drop zone: a CSV dropped on it imports its domains @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	await accountOf(email)
	await page.goto('/domains/import')
	await pageSettled(page)
	const name = uniqueDomain('drop')
	const csv = `domain\n${name}\n`
	const zone = page.getByTestId('file-drop-zone')
	if (jsEnabled(testInfo)) {
		await expect(zone).toContainText('Drop a file here')
		// what the browser hands over when a file is dragged from the desktop
		const dataTransfer = await page.evaluateHandle((text) => {
			const transfer = new DataTransfer()
			transfer.items.add(new File([text], 'domains.csv', { type: 'text/csv' }))
			return transfer
		}, csv)
		await zone.dispatchEvent('dragover', { dataTransfer })
		await expect(zone).toHaveAttribute('data-over', 'true')
		await zone.dispatchEvent('drop', { dataTransfer })
		await expect(page.getByTestId('file-chosen')).toHaveText('Chosen: domains.csv')
		await expectNoSeriousA11yViolations(page)
	} else {
		await page
			.getByLabel('Or upload a CSV')
			.setInputFiles({ name: 'domains.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
	}
	await page.getByRole('button', { name: 'Import domains' }).click()
	await expect(page.getByText(/^1 added, 0 duplicate/)).toBeVisible()
	await expect(page.getByText(name).first()).toBeVisible()
})

test('tabs: plans and credit packs, one at a time once a tab is chosen, moved between with the arrow keys @no-js', async ({
	page,
}, testInfo) => {
	await page.goto('/admin-login')
	await signIn(page, ADMIN.email, ADMIN.password)
	await page.waitForURL('**/admin-dashboard')
	const enhanced: string[] = []
	page.on('request', (request) => {
		const name = /\/assets\/(\w+)\.enhanced-/.exec(request.url())?.[1]
		if (name) enhanced.push(name)
	})
	await page.goto('/admin-dashboard/plans')
	await pageSettled(page)
	if (jsEnabled(testInfo)) {
		// the tabs' code comes on first use, not with the page (decision 0090)
		expect(enhanced).not.toContain('tabs')
		await page
			.getByRole('navigation', { name: 'Prices' })
			.getByRole('link', { name: 'Plans' })
			.click()
		const tabs = page.getByRole('tablist', { name: 'Prices' })
		const plans = tabs.getByRole('tab', { name: 'Plans' })
		await expect(plans).toHaveAttribute('aria-selected', 'true')
		await expect(plans).toBeFocused()
		expect(enhanced).toContain('tabs')
		await expect(page.getByRole('heading', { name: 'Credit packs', exact: true })).toHaveCount(0)
		await plans.focus()
		await page.keyboard.press('ArrowRight')
		await expect(tabs.getByRole('tab', { name: 'Credit packs' })).toHaveAttribute(
			'aria-selected',
			'true',
		)
		await expect(page.getByRole('tabpanel')).toContainText('CREDIT_PACKS')
		await expectNoSeriousA11yViolations(page)
	} else {
		// every panel, one after another, each under its heading
		await expect(page.getByRole('heading', { name: 'Plans', exact: true })).toBeVisible()
		await expect(
			page.getByRole('heading', { name: 'Credit packs', exact: true }).first(),
		).toBeVisible()
		await expect(page.getByText('The pack sizes come from CREDIT_PACKS')).toBeVisible()
	}
})
