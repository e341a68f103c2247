import { expect, test } from '@playwright/test'
import { seedEnrichment, seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { withDatabase } from './support.ts'

test("edit an enrichment's prompt: bad input saves nothing, the preview answers the new prompt @no-js", async ({
	page,
}) => {
	test.setTimeout(90_000) // a shared, busy machine
	const { email } = await subscribedAccount(page)
	const listId = await seedLeadList(email, 'Editing', 5)
	await page.goto(`/enrichments?list=${listId}`)
	const create = page.locator('form#enrichment')
	await create.getByLabel('Name', { exact: true }).fill('Opener')
	await create.getByLabel('Prompt').fill('Write an opener for {{first_name}}')
	await create.getByLabel('Output column').fill('opener')
	await create.getByRole('button', { name: 'Save enrichment' }).click()
	const list = page.getByTestId('enrichment-list')
	await expect(list).toContainText('Write an opener for {{first_name}}')

	await page.getByRole('link', { name: 'Edit Opener' }).click()
	await expect(page.getByRole('heading', { name: 'Edit AI enrichment “Opener”' })).toBeVisible()
	const edit = page.locator('form#enrichment-edit')
	await expect(edit.getByLabel('Prompt')).toHaveValue('Write an opener for {{first_name}}')
	await expect(edit.getByLabel('Output column')).toHaveValue('opener')

	await edit.getByLabel('Prompt').fill('Greet {{nickname}}')
	await edit.getByRole('button', { name: 'Save changes' }).click()
	await expect(edit.getByText('Unknown column: {{nickname}}')).toBeVisible()
	await page.goto('/enrichments')
	await expect(list).toContainText('Write an opener for {{first_name}}')
	await expect(list).not.toContainText('nickname')

	await page.getByRole('link', { name: 'Edit Opener' }).click()
	await edit.getByLabel('Prompt').fill('Greet {{first_name}} from {{company_name}}')
	await edit.getByRole('button', { name: 'Preview on 5 rows' }).click()
	const preview = page.getByTestId('preview')
	await expect(preview).toContainText('AI(gpt-4o-mini): Greet First0 from Acme 0')
	await expect(preview.locator('tbody tr')).toHaveCount(5)
	await edit.getByRole('button', { name: 'Save changes' }).click()
	await expect(page.getByText('Enrichment “Opener” saved')).toBeVisible()
	await expect(list).toContainText('Greet {{first_name}} from {{company_name}}')
	await expect(list.locator('li')).toHaveCount(1)
	await expect(page.locator('form#enrichment-edit')).toHaveCount(0)

	// another account's enrichment, or an id that names nothing: not found
	const theirs = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string }>(
			`insert into ai_enrichments (user_id, name, prompt, output_column, model)
			 select id, 'Theirs', 'About {{email}}', 'theirs_' || floor(random() * 1e9)::text, 'gpt-4o-mini'
			 from auth.users where email = 'admin@e2e.test' returning id`,
		)
		return rows[0]!.id
	})
	expect((await page.goto(`/enrichments?edit=${theirs}`))!.status()).toBe(404)
	const unknown = '5a1e0c3e-0000-4000-8000-000000000000'
	expect((await page.goto(`/enrichments?editChain=${unknown}`))!.status()).toBe(404)
})

test('build a chain step by step, then edit it: move a step up, remove one; the chain keeps the new order @no-js', async ({
	page,
}) => {
	test.setTimeout(90_000)
	await subscribedAccount(page)
	await page.goto('/enrichments')
	const create = page.locator('form#chain')
	await create.getByLabel('Name', { exact: true }).fill('Domains')
	// one step to start with; "Add a step" adds one (without JavaScript the page comes back
	// with one more, what was chosen kept)
	const steps = create.locator('fieldset', { has: page.getByLabel('Kind') })
	await expect(steps).toHaveCount(1)
	await steps.nth(0).getByLabel('Kind').selectOption('email-guess')
	await create.getByRole('button', { name: 'Add a step' }).click()
	await expect(steps).toHaveCount(2)
	await expect(steps.nth(0).getByLabel('Kind')).toHaveValue('email-guess')
	await expect(create.getByLabel('Name', { exact: true })).toHaveValue('Domains')
	await steps.nth(1).getByLabel('Kind').selectOption('company-domain')
	await create.getByRole('button', { name: 'Add a step' }).click()
	await expect(steps).toHaveCount(3)
	await steps.nth(2).getByLabel('Kind').selectOption('email-guess')
	await steps.nth(2).getByLabel('Output column (built-in steps)').fill('backup_email')
	await create.getByRole('button', { name: 'Save chain' }).click()
	const chains = page.locator('section', { hasText: 'Your chains' }).locator('ol li')
	await expect(chains).toHaveText([
		/^Email pattern guess .* → email_guess$/,
		/^Company domain from company name .* → company_domain_guess$/,
		/^Email pattern guess .* → backup_email$/,
	])
	// the saved chain's form starts over: a second click must not save a duplicate
	await expect(create.getByLabel('Name', { exact: true })).toHaveValue('')
	await expect(steps).toHaveCount(1)
	await expect(steps.nth(0).getByLabel('Kind')).toHaveValue('')

	await page.getByRole('link', { name: 'Edit Domains' }).click()
	const edit = page.locator('form#chain-edit')
	await expect(edit.getByLabel('Name', { exact: true })).toHaveValue('Domains')
	await edit.getByRole('button', { name: 'Move step 2 up' }).click()
	await expect(
		edit
			.locator('fieldset', { has: page.getByLabel('Kind') })
			.nth(0)
			.getByLabel('Kind'),
	).toHaveValue('company-domain')
	await edit.getByRole('button', { name: 'Remove step 3' }).click()
	await expect(edit.locator('fieldset', { has: page.getByLabel('Kind') })).toHaveCount(2)
	await edit
		.locator('fieldset', { has: page.getByLabel('Kind') })
		.nth(1)
		.getByLabel('Run only if column')
		.fill('company_domain')
	await edit
		.locator('fieldset', { has: page.getByLabel('Kind') })
		.nth(1)
		.getByLabel('Comparison')
		.selectOption('not-empty')
	await edit.getByLabel('Name', { exact: true }).fill('Domains first')
	await edit.getByRole('button', { name: 'Save chain changes' }).click()
	await expect(page.getByText('Chain “Domains first” saved')).toBeVisible()
	await expect(chains).toHaveText([
		/^Company domain from company name .* → company_domain_guess$/,
		/^Email pattern guess .* → email_guess \(only if company_domain /,
	])
})

test('on a phone, Edit lands on the form and a refused save shows its error in view @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	await seedLeadList(email, 'Phone', 3)
	await seedEnrichment(email, {
		name: 'Opener',
		prompt: 'Write an opener for {{first_name}}',
		outputColumn: 'opener',
	})
	await page.setViewportSize({ width: 390, height: 800 })
	await page.goto('/enrichments')
	await page.getByRole('link', { name: 'Edit Opener' }).click()
	const heading = page.getByRole('heading', { name: 'Edit AI enrichment “Opener”' })
	await expect(heading).toBeInViewport()
	const edit = page.locator('form#enrichment-edit')
	await edit.getByLabel('Prompt').fill('Greet {{nickname}}')
	await edit.getByRole('button', { name: 'Save changes' }).click()
	await expect(edit.getByText('Unknown column: {{nickname}}')).toBeInViewport()
})

test('deleting an enrichment asks first, and one a chain uses says why it stays @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	const enrichmentId = await seedEnrichment(email, {
		name: 'Opener',
		prompt: 'Write an opener for {{first_name}}',
		outputColumn: 'opener',
	})
	await withDatabase((client) =>
		client.query(
			`insert into enrichment_chain (user_id, name, steps)
			 select id, 'Outreach', $2::jsonb from auth.users where email = $1`,
			[email, JSON.stringify([{ kind: 'ai', enrichmentId, condition: null }])],
		),
	)
	await page.goto('/enrichments')
	const row = page.getByTestId('enrichment-list').locator('li', { hasText: 'Opener' })
	// one click does not delete: the confirm step opens first
	await expect(row.getByRole('button', { name: 'Delete “Opener”' })).toBeHidden()
	await row.locator('summary', { hasText: 'Delete' }).click()
	await row.getByRole('button', { name: 'Delete “Opener”' }).click()
	await expect(
		page.getByText('The chain “Outreach” uses this enrichment. Delete it first.'),
	).toBeVisible()
	await page.goto('/enrichments')
	await expect(page.getByTestId('enrichment-list')).toContainText('Opener')
})
