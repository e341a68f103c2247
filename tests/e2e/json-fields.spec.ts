import { randomUUID } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { seedLeadList } from './enrich-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { signIn, withDatabase } from './support.ts'

// JSON read as fields (issue 34 point 6): an enrichment's JSON answer in its preview, and an
// audit entry's before and after, are names and values, not raw JSON.

test("a JSON enrichment's preview shows its answer as fields @no-js", async ({ page }) => {
	const { email } = await subscribedAccount(page, { credits: 10 })
	const listId = await seedLeadList(email, 'Founders', 2)
	await page.goto(`/enrichments?list=${listId}`)
	const form = page.locator('form#enrichment')
	await form.getByLabel('Name').fill('Profile')
	await form.getByLabel('Prompt').fill('Profile {{company_name}}')
	await form.getByLabel('Output column').fill('profile')
	await form.getByLabel('JSON fields', { exact: true }).check()
	await form.getByLabel('JSON fields (for JSON output)').fill('industry:string, employees:number')
	await form.getByRole('button', { name: 'Preview on 5 rows' }).click()
	const answer = page.getByTestId('preview').locator('tbody tr').first().getByRole('cell').nth(2)
	await expect(answer.getByRole('term')).toHaveText(['industry', 'employees'])
	await expect(answer.getByRole('definition').first()).toHaveText(/^industry: Profile Acme/)
	await expect(answer).not.toContainText('{')
})

test("the audit log shows an entry's before and after as fields @no-js", async ({ page }) => {
	const target = randomUUID()
	await withDatabase((client) =>
		client.query(
			`insert into audit_log (action, target_type, target_id, before, after)
			 values ('admin.plan.update', 'plan', $1, $2, $3)`,
			[
				target,
				JSON.stringify({ name: 'Starter', price_cents: 4900, features: ['CSV', 'AI'] }),
				JSON.stringify({ name: 'Starter', price_cents: 5900, limits: { lists: 10 } }),
			],
		),
	)
	await page.goto('/admin-login')
	await signIn(page, 'admin@e2e.test', 'admin-password-1')
	await page.waitForURL('**/admin-dashboard')
	await page.goto(`/admin-dashboard/audit?target=${target}`)
	const row = page.getByRole('row').filter({ hasText: 'admin.plan.update' })
	await expect(row).toHaveCount(1)
	await expect(row).not.toContainText('{')
	const [before, after] = [row.getByRole('cell').nth(4), row.getByRole('cell').nth(5)]
	await expect(before.getByRole('term')).toHaveText(['name', 'features', 'price_cents'])
	await expect(before.getByRole('definition')).toHaveText(['Starter', 'CSV, AI', '4,900'])
	await expect(after.getByRole('term')).toHaveText(['name', 'limits', 'lists', 'price_cents'])
	await expect(after.getByRole('definition').last()).toHaveText('5,900')
})
