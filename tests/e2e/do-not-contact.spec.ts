import { expect, test, type Page } from '@playwright/test'
import { startFakeEmailBison, type FakeEmailBison } from '../fakes/emailbison/server.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'

// Issue 36: adding, importing, and an upload that leaves suppressed and duplicate leads out,
// with JavaScript on and off.
test.describe('do not contact @no-js', () => {
	let eb: FakeEmailBison
	test.beforeAll(async () => {
		eb = await startFakeEmailBison({ workspaces: 2 })
	})
	test.afterAll(async () => {
		await eb.close()
	})

	async function connect(page: Page) {
		await page.goto('/settings')
		await page.getByLabel('EmailBison URL').fill(`${eb.url}/api`)
		await page.getByLabel('Super-admin API key').fill(eb.superAdminKey)
		await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
		await expect(page.getByText('EmailBison settings saved')).toBeVisible()
	}

	/** A list of the given emails (first names Lead1..n), ready to upload. */
	async function insertList(email: string, name: string, emails: string[]) {
		return withDatabase(async (client) => {
			const { rows } = await client.query<{ id: string }>(
				`insert into processing_list (user_id, name, source_type, status)
				 select id, $2, 'upload', 2 from auth.users where email = $1 returning id`,
				[email, name],
			)
			const listId = rows[0]!.id
			await client.query(
				`insert into leads (list_id, user_id, email, first_name, last_name, company_name, data)
				 select $1, l.user_id, e.email, 'Lead' || e.n, 'Last', 'Acme', '{}'::jsonb
				 from processing_list l, unnest($2::text[]) with ordinality e(email, n) where l.id = $1`,
				[listId, emails],
			)
			return listId
		})
	}

	async function upload(page: Page, listId: string, campaignName: string) {
		await page.goto(`/lists/${listId}/upload`)
		await page.getByLabel('Workspace').selectOption({ label: 'Workspace 1' })
		await page.getByRole('button', { name: 'Continue' }).click()
		await expect(page.getByText('Campaign in Workspace 1')).toBeVisible()
		await page.getByLabel('Campaign', { exact: true }).selectOption('new')
		await page.getByLabel('New campaign name (when creating one)').fill(campaignName)
	}

	async function waitDone(page: Page, jsOn: boolean) {
		await expect(page).toHaveURL(/\/uploads\?list=/)
		const row = page.getByTestId('upload-row').first()
		await expect(async () => {
			if (!jsOn) await page.reload()
			await expect(row.getByText('Done', { exact: true })).toBeVisible({ timeout: 1000 })
		}).toPass({ timeout: 30_000 })
		return row
	}

	test('add an entry: a malformed email gets a message at the field, a free mail domain asks first', async ({
		page,
	}) => {
		await subscribedAccount(page)
		await page.goto('/do-not-contact')
		await expect(page.getByTestId('dnc-empty')).toBeVisible()
		const value = page.getByLabel('Email or domain')
		const add = page.getByRole('button', { name: 'Add to do not contact' })

		await value.fill('jane@@client')
		await add.click()
		await expect(page.getByText('jane@@client is not a valid email address')).toBeVisible()
		await expect(value).toHaveAttribute('aria-invalid', 'true')
		// nothing written
		await expect(page.getByTestId('dnc-table')).toHaveCount(0)

		await value.fill('Jane.Doe+news@Client.com ')
		await add.click()
		await expect(page.getByText('jane.doe+news@client.com added to do not contact')).toBeVisible()
		const table = page.getByTestId('dnc-table')
		await expect(table.getByRole('row', { name: /jane\.doe\+news@client\.com/ })).toBeVisible()

		await page.getByLabel('Email or domain').fill('gmail.com')
		await page.getByRole('button', { name: 'Add to do not contact' }).click()
		const confirm = page.getByLabel('Yes, block this whole free mail domain')
		await expect(confirm).toBeVisible()
		await expect(page.getByText(/gmail\.com is a free mail domain/)).toBeVisible()
		// not added until confirmed
		await expect(table.getByRole('row', { name: /gmail\.com/ })).toHaveCount(0)
		await confirm.check()
		await page.getByRole('button', { name: 'Add to do not contact' }).click()
		await expect(page.getByText('gmail.com added to do not contact')).toBeVisible()
		await expect(
			page.getByTestId('dnc-table').getByRole('row', { name: /gmail\.com/ }),
		).toBeVisible()

		// the list downloads as a CSV of what the table shows
		const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')
		const download = await page.request.get(href!)
		expect(download.headers()['content-type']).toBe('text/csv; charset=utf-8')
		expect(download.headers()['content-disposition']).toBe(
			'attachment; filename="do-not-contact.csv"',
		)
		const lines = (await download.text()).trim().split('\r\n')
		expect(lines[0]).toBe('value,kind,reason,scope,added_by,added_at')
		expect(lines.map((l) => l.split(',')[0]).sort()).toEqual([
			'gmail.com',
			'jane.doe+news@client.com',
			'value',
		])
	})

	test('import a CSV of emails and domains: bad lines are named by their line number', async ({
		page,
	}) => {
		await subscribedAccount(page)
		await page.goto('/do-not-contact')
		const csv = [
			'email',
			'unsub@client.com',
			'competitor.com',
			'not an email@',
			'https://www.rival.io/about',
			'unsub@client.com',
		].join('\n')
		await page
			.getByLabel('CSV file')
			.setInputFiles({ name: 'dnc.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
		await page.getByRole('button', { name: 'Import', exact: true }).click()
		const report = page.getByTestId('dnc-import-report')
		await expect(report).toContainText('3 added, 1 already on the list, 1 line refused (of 5).')
		await expect(report).toContainText('Line 4: not an email@ is not a valid email address')
		await page.goto('/do-not-contact')
		const table = page.getByTestId('dnc-table')
		await expect(table.getByRole('row', { name: /unsub@client\.com/ })).toBeVisible()
		await expect(table.getByRole('row', { name: /competitor\.com/ })).toBeVisible()
		await expect(table.getByRole('row', { name: /rival\.io/ })).toBeVisible()
		await expect(table.getByRole('row', { name: /not an email/ })).toHaveCount(0)
	})

	test('an EmailBison upload leaves suppressed and already-uploaded leads out', async ({
		page,
	}, testInfo) => {
		const jsOn = jsEnabled(testInfo)
		const tag = `${testInfo.project.name}-${Date.now()}`
		const { email } = await subscribedAccount(page)
		await connect(page)

		// first upload: two leads reach Workspace 1
		const first = await insertList(email, 'First', [`a-${tag}@one.com`, `b-${tag}@one.com`])
		await upload(page, first, `First ${tag}`)
		await page.getByRole('button', { name: 'Upload to EmailBison' }).click()
		await waitDone(page, jsOn)

		// the entries: one email, and a domain whose subdomain a lead is at
		await page.goto('/do-not-contact')
		await page.getByLabel('Email or domain').fill(`Unsub-${tag}@Two.com`)
		await page.getByRole('button', { name: 'Add to do not contact' }).click()
		await expect(page.getByText('added to do not contact')).toBeVisible()
		await page.getByLabel('Email or domain').fill('blocked-rival.com')
		await page.getByRole('button', { name: 'Add to do not contact' }).click()
		await expect(page.getByText('blocked-rival.com added to do not contact')).toBeVisible()

		// second list: 2 clean, 2 suppressed, 1 already uploaded (other case, spaces)
		const second = await insertList(email, 'Second', [
			`c-${tag}@two.com`,
			`d-${tag}@two.com`,
			`unsub-${tag}@two.com`,
			`sales@eu.blocked-rival.com`,
			` A-${tag}@One.com`,
		])
		// the list's page says how many of its leads the list matches
		await page.goto(`/lists/${second}`)
		await expect(page.getByTestId('list-suppressed')).toHaveText(
			'2 leads on your do-not-contact list: never enriched, verified or uploaded.',
		)
		const campaignName = `Second ${tag}`
		await upload(page, second, campaignName)
		const exclusions = page.getByTestId('upload-exclusions')
		await expect(exclusions).toContainText(
			'2 leads are on your do-not-contact list and will not be sent.',
		)
		await expect(exclusions).toContainText(
			'1 lead was already uploaded to this EmailBison workspace',
		)
		await page.getByRole('button', { name: 'Upload to EmailBison' }).click()
		await expect(page.getByText('Upload started: 2 leads to EmailBison')).toBeVisible()
		const row = await waitDone(page, jsOn)
		await expect(row.getByTestId('sent')).toHaveText('2')

		// counted at the fake: only the two clean leads reached the campaign
		const campaign = [...eb.campaigns.values()].find((c) => c.name === campaignName)!
		const workspace = eb.workspaces.get(campaign.workspaceId)!
		const byId = new Map([...workspace.leads.values()].map((l) => [l.id, l.email]))
		expect(campaign.leads.map((id) => byId.get(id)).sort()).toEqual([
			`c-${tag}@two.com`,
			`d-${tag}@two.com`,
		])
	})

	test('sync with EmailBison: the entry is sent to its blacklists once and shows synced', async ({
		page,
	}, testInfo) => {
		const jsOn = jsEnabled(testInfo)
		const value = `sync-${testInfo.project.name}-${Date.now()}@client.com`
		await subscribedAccount(page)
		await connect(page)
		await page.goto('/do-not-contact')
		await page.getByLabel('Email or domain').fill(value)
		await page.getByRole('button', { name: 'Add to do not contact' }).click()
		await expect(page.getByText(`${value} added to do not contact`)).toBeVisible()
		await page.getByRole('button', { name: 'Sync with EmailBison' }).click()
		await expect(page).toHaveURL(/\/do-not-contact\?sync=/)
		// adding it queued a sync already: the form starts one or joins that one (the page's own
		// refresh while a sync runs waits for the form's load, which keeps its toast: 0107)
		await expect(
			page.getByText(/Sync with EmailBison started|A sync with EmailBison is already under way/),
		).toBeVisible()
		const row = page.getByTestId('dnc-table').getByRole('row', { name: new RegExp(value) })
		await expect(async () => {
			if (!jsOn) await page.reload()
			await expect(row.getByText('Synced', { exact: true })).toBeVisible({ timeout: 1000 })
			// the entry can be synced while the run that joined the form's start still ends
			await expect(page.getByTestId('dnc-sync-status')).toContainText('Sync done', {
				timeout: 1000,
			})
		}).toPass({ timeout: 45_000 })
		// counted at the fake: once in each EmailBison workspace
		const counts = [...eb.workspaces.keys()].map((id) => eb.blacklistReceived.get(`${id} ${value}`))
		expect(counts).toEqual([1, 1])
	})

	test('remove leads that are in my other lists, after a preview count', async ({
		page,
		browser,
	}) => {
		const { email } = await subscribedAccount(page)
		const tag = Date.now()
		const target = await insertList(email, 'Merged', [
			`a-${tag}@x.com`,
			`b-${tag}@x.com`,
			`c-${tag}@x.com`,
		])
		await insertList(email, 'Earlier', [` A-${tag}@X.com`])
		// another account's list with the same lead counts for nothing here
		const other = await browser.newContext()
		const otherPage = await other.newPage()
		const { email: otherEmail } = await subscribedAccount(otherPage)
		await insertList(otherEmail, 'Theirs', [`b-${tag}@x.com`])
		await other.close()
		await withDatabase((c) =>
			c.query(`update processing_list set found = 3 where id = $1`, [target]),
		)

		await page.goto(`/lists/${target}`)
		await page.getByRole('link', { name: 'Remove leads in my other lists' }).click()
		await expect(page.getByTestId('dedupe-preview')).toContainText(
			'1 lead of 3 is also in your other lists',
		)
		await page.getByRole('button', { name: 'Remove 1 lead' }).click()
		await expect(page.getByText('1 lead in your other lists removed from this list')).toBeVisible()
		await expect(page).toHaveURL(new RegExp(`/lists/${target}$`))
		await expect(page.getByTestId('lead-count')).toHaveText('2 leads')
		await expect(page.getByText(`a-${tag}@x.com`)).toHaveCount(0)
		await expect(page.getByText(`b-${tag}@x.com`).first()).toBeVisible()
	})
})
