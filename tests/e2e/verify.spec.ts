import { expect, test } from '@playwright/test'
import { startFakeEmailBison } from '../fakes/emailbison/server.ts'
import { seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, withDatabase } from './support.ts'

// Issue 35: verify a list from its page, with and without JavaScript: the estimate, the run's
// live progress, the summary by status and a group of it on the list page.
test('verify a list: estimate, run, the summary and one status group @no-js', async ({
	page,
}, testInfo) => {
	test.setTimeout(90_000)
	const { email } = await subscribedAccount(page, { credits: 100 })
	const listId = await seedLeadList(email, 'Verify me', 5)
	await withDatabase((client) =>
		client.query(
			`update leads set email = 'invalid-' || email where list_id = $1 and email like 'lead0@%'`,
			[listId],
		),
	)
	await page.goto(`/lists/${listId}`)
	await page.getByRole('link', { name: 'Verify emails' }).click()
	await expect(page).toHaveTitle('Verify emails | Leadsmith')
	const form = page.locator('form#verify')
	await form.getByLabel(/^Credits/).check()
	await form.getByRole('button', { name: 'Estimate' }).click()
	const estimate = page.getByTestId('verify-estimate')
	await expect(estimate.getByTestId('estimate-to-check')).toHaveText('5')
	await expect(estimate.getByTestId('estimate-credits')).toContainText('Up to 5 credits')
	await page.getByRole('button', { name: 'Verify now' }).click()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.getByTestId('verify-run').getByText('Done', { exact: true })).toBeVisible({
			timeout: 1000,
		})
	}).toPass({ timeout: 45_000 })
	await expect(page.getByTestId('status-count-valid')).toHaveText('Valid: 4')
	await page.getByTestId('status-count-invalid').click()
	await expect(page.getByTestId('lead-row')).toHaveCount(1)
	await expect(page.getByTestId('lead-row').first()).toContainText('Invalid')
})

// Issue 35 point 5: a chain's "Verify email" step and its catch-all policy, saved and shown.
test('a chain with a Verify email step and its catch-all policy @no-js', async ({ page }) => {
	test.setTimeout(90_000)
	await subscribedAccount(page)
	await page.goto('/enrichments')
	const create = page.locator('form#chain')
	await create.getByLabel('Name', { exact: true }).fill('Email waterfall')
	const steps = create.locator('fieldset', { has: page.getByLabel('Kind') })
	await steps.nth(0).getByLabel('Kind').selectOption('email-guess')
	await steps.nth(0).getByLabel('Output column').fill('work_email')
	await create.getByRole('button', { name: 'Add a step' }).click()
	await expect(steps).toHaveCount(2)
	await steps.nth(1).getByLabel('Kind').selectOption('verify-email')
	await steps.nth(1).getByLabel('Output column').fill('work_email')
	// only safe to send is the default
	await expect(create.getByLabel(/^Only safe to send/)).toBeChecked()
	await create.getByLabel(/^Accept catch-all/).check()
	await create.getByRole('button', { name: 'Save chain' }).click()
	const chains = page.locator('section', { hasText: 'Your chains' }).locator('ol li')
	await expect(chains).toHaveText([
		/^Email pattern guess .* → work_email$/,
		'Verify email in work_email (catch-all accepted)',
	])
	await page
		.locator('section', { hasText: 'Your chains' })
		.getByRole('link', { name: /Edit/ })
		.first()
		.click()
	const edit = page.locator('form#chain-edit')
	await expect(edit.getByLabel(/^Accept catch-all/)).toBeChecked()
	await edit.getByLabel(/^Only safe to send/).check()
	await edit.getByRole('button', { name: 'Save chain changes' }).click()
	// the create's toast may still be up: the newest one is the edit's
	await expect(page.getByText('Chain “Email waterfall” saved').last()).toBeVisible()
	await expect(chains.nth(1)).toHaveText('Verify email in work_email (only safe to send)')
})

// Issue 35 point 6: the upload form shows the list by status and what it leaves out; the
// report says how many were left out and why.
test('upload choices by email status, and the report of what was left out @no-js', async ({
	page,
}, testInfo) => {
	test.setTimeout(90_000)
	const eb = await startFakeEmailBison({ workspaces: 1 })
	try {
		const { email } = await subscribedAccount(page)
		await page.goto('/settings')
		await page.getByLabel('EmailBison URL').fill(`${eb.url}/api`)
		await page.getByLabel('Super-admin API key').fill(eb.superAdminKey)
		await page.getByRole('button', { name: 'Save EmailBison settings' }).click()
		await expect(page.getByText('EmailBison settings saved')).toBeVisible()
		const listId = await seedLeadList(email, 'Upload by status', 6)
		await withDatabase((client) =>
			client.query(
				`update leads set verify_status = s.status, verified_at = now()
				 from (select id, (array['valid','invalid','catch_all','unknown','disposable',null])[row_number() over (order by email)] as status
				       from leads where list_id = $1) s
				 where leads.id = s.id`,
				[listId],
			),
		)
		await page.goto(`/lists/${listId}/upload`)
		await page.getByLabel('Workspace').selectOption({ index: 1 })
		await page.getByRole('button', { name: 'Continue' }).click()
		const choices = page.getByTestId('verify-choices')
		await expect(choices.getByTestId('always-left-out')).toContainText('Always left out: 2 leads')
		await expect(choices.getByLabel('Leave out catch-all (1 lead)')).toBeChecked()
		await expect(choices.getByLabel('Leave out unknown (1 lead)')).toBeChecked()
		await expect(choices.getByLabel('Upload them')).toBeChecked()
		// keep catch-all, leave the unverified lead out
		await choices.getByLabel('Leave out catch-all (1 lead)').uncheck()
		await choices.getByLabel('Leave them out').check()
		await page.getByLabel('Campaign', { exact: true }).selectOption('new')
		await page
			.getByLabel('New campaign name (when creating one)')
			.fill(`Statuses ${testInfo.project.name}`)
		await page.getByRole('button', { name: 'Upload to EmailBison' }).click()
		await expect(page).toHaveURL(/\/uploads\?list=/)
		const row = page.getByTestId('upload-row').first()
		await expect(async () => {
			if (!jsEnabled(testInfo)) await page.reload()
			await expect(row.getByTestId('left-out')).toHaveText(
				'4 left out by email status: invalid 1, disposable 1, unknown 1, not verified 1',
				{ timeout: 1000 },
			)
		}).toPass({ timeout: 30_000 })
		await expect(async () => {
			if (!jsEnabled(testInfo)) await page.reload()
			await expect(row.getByTestId('sent')).toHaveText('2', { timeout: 1000 })
		}).toPass({ timeout: 30_000 })
	} finally {
		await eb.close()
	}
})
