import { expect, test, type Page } from '@playwright/test'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'

// The EmailBison URL is per account: the test types the fake's URL into /settings.
let eb: FakeEmailBison
test.beforeAll(async () => {
	eb = await startFakeEmailBison({ workspaces: 20 })
})
test.afterAll(async () => {
	await eb.close()
})

async function connect(page: Page, key = eb.superAdminKey) {
	await page.goto('/settings')
	await page.getByLabel('EmailBison URL').fill(`${eb.url}/api`)
	await page.getByLabel('Super-admin API key').fill(key)
	await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
	await expect(page.getByText('EmailBison settings saved')).toBeVisible()
}

async function insertList(email: string, count: number) {
	return withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into processing_list (user_id, name, source_type, status)
			 select id, 'Upload me', 'upload', 2 from auth.users where email = $1 returning id`,
			[email],
		)
		const listId = rows[0]!.id
		await client.query(
			`insert into leads (list_id, user_id, email, first_name, last_name, company_name, data)
			 select $1, l.user_id, case when n = 3 then '=not-an-email' else 'e2e' || n || '@acme' || n || '.com' end,
				'First' || n, 'Last' || n, 'Acme', jsonb_build_object('icebreaker', 'Hello ' || n)
			 from processing_list l, generate_series(1, $2::int) n where l.id = $1`,
			[listId, count],
		)
		return listId
	})
}

test('EmailBison settings: the URL must be http(s), a wrong key is reported, the key shows by its last 4 @no-js', async ({
	page,
}) => {
	await subscribedAccount(page)
	await page.goto('/settings')
	await page.getByLabel('EmailBison URL').fill('ftp://mail.example.com')
	await page.getByLabel('Super-admin API key').fill('whatever-key')
	await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
	await expect(page.getByText('Enter an http:// or https:// URL')).toBeVisible()

	await connect(page, 'wrong-key-0000')
	await page.getByRole('button', { name: 'Test connection' }).click()
	await expect(
		page.getByText('EmailBison refused the key: check the super-admin API key.'),
	).toBeVisible()

	await connect(page)
	await expect(page.getByText('Saved: ending in 1234')).toBeVisible()
	await expect(page.getByLabel('Super-admin API key')).toHaveValue('')
	await page.getByRole('button', { name: 'Test connection' }).click()
	await expect(page.getByText('Connected to EmailBison as Fake Admin')).toBeVisible()
})

test('a new EmailBison URL needs the key again: the saved key is never sent to the other instance @no-js', async ({
	page,
}) => {
	const other = await startFakeEmailBison({
		workspaces: 1,
		superAdminKey: 'eb-other-e2e-instance-key-4321',
		adminName: 'Other Admin',
	})
	try {
		await subscribedAccount(page)
		await connect(page)
		await page.getByLabel('EmailBison URL').fill(other.url)
		await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
		await expect(
			page.getByText(
				'Enter the super-admin API key again: the saved key is only sent to the URL it was saved with.',
			),
		).toBeVisible()
		await page.goto('/settings')
		await expect(page.getByLabel('EmailBison URL')).toHaveValue(`${eb.url}/api`)
		await page.getByRole('button', { name: 'Test connection' }).click()
		await expect(page.getByText('Connected to EmailBison as Fake Admin')).toBeVisible()
		expect(other.keysReceived).toEqual([])

		await page.getByLabel('EmailBison URL').fill(other.url)
		await page.getByLabel('Super-admin API key').fill(other.superAdminKey)
		await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
		await expect(page.getByText('EmailBison settings saved')).toBeVisible()
		await page.getByRole('button', { name: 'Test connection' }).click()
		// the other instance answers with its own name: its toast is not the first test's
		await expect(page.getByText('Connected to EmailBison as Other Admin')).toBeVisible()
		expect(other.keysReceived).toEqual([other.superAdminKey])
	} finally {
		await other.close()
	}
})

test('upload a list to a new EmailBison campaign and watch it finish @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	await connect(page)
	const listId = await insertList(email, 40)
	await page.goto(`/lists/${listId}/upload`)
	await expect(page).toHaveTitle('Upload to EmailBison | Leadsmith')
	// all pages of workspaces are offered
	await page.getByLabel('Workspace').selectOption({ label: 'Workspace 17' })
	await page.getByRole('button', { name: 'Continue' }).click()
	await expect(page.getByText('Campaign in Workspace 17')).toBeVisible()
	await page.getByLabel('Campaign', { exact: true }).selectOption('new')
	const campaignName = `E2E ${testInfo.project.name}`
	await page.getByLabel('New campaign name (when creating one)').fill(campaignName)
	await expect(page.getByLabel('icebreaker (enrichment)')).toHaveValue('icebreaker')
	await page.getByRole('button', { name: 'Upload to EmailBison' }).click()

	await expect(page).toHaveURL(/\/uploads\?list=/)
	await expect(page.getByText('Upload started: 40 leads to EmailBison')).toBeVisible()
	const row = page.getByTestId('upload-row').first()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		// one lead of 40 was rejected: partly failed, not a plain Done
		await expect(row.getByText('Partly failed', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 20_000 })
	await expect(row.getByTestId('sent')).toHaveText('39')
	await expect(row.getByTestId('rejected')).toContainText('1')
	await expect(row).toContainText(campaignName)
	await expect(row.getByTestId('rejection-reasons')).toContainText(
		'The email address is not valid. (1 lead)',
	)

	const download = await page.request.get(
		(await row.getByRole('link', { name: 'Download rejected rows' }).getAttribute('href'))!,
	)
	expect(download.headers()['content-type']).toContain('text/csv')
	const csv = await download.text()
	expect(csv).toContain("'=not-an-email,First3,Last3,The email address is not valid.")

	const campaign = [...eb.campaigns.values()].find((c) => c.name === campaignName)!
	expect(eb.workspaces.get(campaign.workspaceId)!.name).toBe('Workspace 17')
	expect(campaign.leads).toHaveLength(39)
})

test("another account's list is a 404 on the upload page", async ({ page, browser }) => {
	const { email } = await subscribedAccount(page)
	const listId = await insertList(email, 2)
	const other = await browser.newContext()
	try {
		const stranger = await other.newPage()
		await subscribedAccount(stranger)
		const response = await stranger.goto(`/lists/${listId}/upload`)
		expect(response!.status()).toBe(404)
	} finally {
		await other.close()
	}
})

test('an upload whose leads EmailBison all rejects is warned of first and ends as failed @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	await connect(page)
	const listId = await insertList(email, 6)
	// no first names: EmailBison requires one (a missing last name it takes)
	await withDatabase((client) =>
		client.query(`update leads set first_name = null where list_id = $1`, [listId]),
	)
	await page.goto(`/lists/${listId}/upload`)
	await page.getByLabel('Workspace').selectOption({ label: 'Workspace 2' })
	await page.getByRole('button', { name: 'Continue' }).click()
	await expect(page.getByText('Campaign in Workspace 2')).toBeVisible()
	// the pre-flight count, before anything is sent
	await expect(page.getByTestId('preflight-first_name')).toHaveText(
		'6 of 6 leads have no first name here: EmailBison will reject them.',
	)
	await expect(page.getByTestId('preflight-email')).toHaveCount(0)
	// choosing another source updates the count: at once with JavaScript, and without it on
	// "Check the fields" (which sends nothing)
	await page.getByLabel('Email', { exact: true }).selectOption('')
	if (!jsEnabled(testInfo)) await page.getByRole('button', { name: 'Check the fields' }).click()
	await expect(page.getByTestId('preflight-email')).toHaveText(
		'Email is not sent: EmailBison requires it and will reject all 6 leads.',
	)
	await expect(page.getByLabel('Email', { exact: true })).toHaveValue('')
	await page.getByLabel('Email', { exact: true }).selectOption('email')
	if (!jsEnabled(testInfo)) await page.getByRole('button', { name: 'Check the fields' }).click()
	await expect(page.getByTestId('preflight-email')).toHaveCount(0)
	await page.getByLabel('Campaign', { exact: true }).selectOption('new')
	await page
		.getByLabel('New campaign name (when creating one)')
		.fill(`Nobody ${testInfo.project.name}`)
	await page.getByRole('button', { name: 'Upload to EmailBison' }).click()
	await expect(page).toHaveURL(/\/uploads\?list=/)
	const row = page.getByTestId('upload-row').first()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(row.getByText('Failed', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 20_000 })
	await expect(row.getByText('Done', { exact: true })).toHaveCount(0)
	await expect(row.getByTestId('sent')).toHaveText('0')
	await expect(row.getByTestId('upload-error')).toHaveText(
		'EmailBison rejected every lead: nothing was uploaded. Download the rejected rows to see why.',
	)
	await expect(row.getByTestId('rejection-reasons')).toContainText(
		'First name is missing: EmailBison requires it.',
	)
	await expect(row.getByRole('progressbar')).toHaveCount(0)
	await expect(row).toContainText('0 of 6 sent')
})
