import { expect as baseExpect, test, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { latestMail } from './mail.ts'
import { expectNoSeriousA11yViolations, jsEnabled, pageSettled } from './support.ts'

// Sign-up, two imports in the worker and the mails take a while on a busy machine.
test.describe.configure({ timeout: 120_000 })
const expect = baseExpect.configure({ timeout: 20_000 })

/** Uploads a CSV and imports it as `name`: a real csv-import job in the worker. */
async function importList(page: Page, name: string, csv: string) {
	await page.goto('/file-list')
	// with JavaScript, a file chosen before hydration would be dropped by the re-render
	await pageSettled(page)
	await page
		.getByLabel('CSV file')
		.setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
	await page.getByRole('button', { name: 'Upload' }).click()
	await page.getByLabel('List name').fill(name)
	await page.getByRole('button', { name: /^Import \d+ rows?/ }).click()
	await expect(page).toHaveURL(/\/lists\/[0-9a-f-]{36}$/)
	return new URL(page.url()).pathname
}

/** The header's bell, once it says `unread` (the job ends in the worker: reload until then). */
async function bellSays(page: Page, unread: string) {
	await expect(async () => {
		await page.reload()
		await expect(page.getByRole('link', { name: `Notifications, ${unread} unread` })).toBeVisible({
			timeout: 1000,
		})
	}).toPass({ timeout: 30_000 })
}

test('a job that ends: the bell counts it, the page links to it, it is marked read, and mailed @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	await page.goto('/')
	await expect(page.getByRole('link', { name: 'Notifications, none unread' })).toBeVisible()

	const first = await importList(page, 'Notified first', 'email\nada@example.com\n')
	await bellSays(page, '1')
	const second = await importList(
		page,
		'Notified second',
		'email\ngrace@example.com\nbob@example.com\n',
	)
	await bellSays(page, '2')

	await page.getByRole('link', { name: 'Notifications, 2 unread' }).click()
	await expect(page).toHaveURL(/\/notifications$/)
	await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible()
	const items = page.getByTestId('notification')
	await expect(items).toHaveCount(2)
	// newest first, each with a link to its result
	await expect(items.first()).toContainText(
		'Import of “Notified second” finished: 2 leads imported',
	)
	await expect(items.nth(1)).toContainText('Import of “Notified first” finished: 1 lead imported')
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)
	await items
		.nth(1)
		.getByRole('link', { name: /Notified first/ })
		.click()
	await expect(page).toHaveURL(new RegExp(`${first}$`))
	await expect(page.getByRole('heading', { name: 'Notified first' })).toBeVisible()

	// one read, then all
	await page.goto('/notifications')
	await page.getByTestId('notification').first().getByRole('button', { name: 'Mark read' }).click()
	await expect(page.getByText('Marked as read')).toBeVisible()
	await expect(page.getByRole('link', { name: 'Notifications, 1 unread' })).toBeVisible()
	await expect(page.getByTestId('notification').first().getByText('Unread')).toHaveCount(0)
	await page.getByRole('button', { name: 'Mark all read' }).click()
	await expect(page.getByText('1 notification marked as read')).toBeVisible()
	await expect(page.getByRole('link', { name: 'Notifications, none unread' })).toBeVisible()
	await expect(page.getByRole('button', { name: 'Mark read' })).toHaveCount(0)

	// the mail, from the local mailbox, with the link to the result
	const mail = await latestMail(email)
	expect(mail.subject).toBe('Import of “Notified second” finished: 2 leads imported')
	expect(mail.link).toMatch(new RegExp(`${second}$`))

	// which ones mail: the owner's choice in Settings, kept
	await page.goto('/settings')
	await expect(page.getByRole('heading', { name: 'Notification mails' })).toBeVisible()
	await page.getByLabel('CSV imports').uncheck()
	await page.getByRole('button', { name: 'Save notification mails' }).click()
	await expect(page.getByText('Notification mails saved')).toBeVisible()
	await page.reload()
	await expect(page.getByLabel('CSV imports')).not.toBeChecked()
	await expect(page.getByLabel('Lead and company searches')).toBeChecked()
})
