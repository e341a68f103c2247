import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled, pageSettled, withDatabase } from './support.ts'

// A prompt names columns as {{placeholders}}: the form offers them as chips (issue 34 point 6)
// that insert themselves at the cursor, or, without JavaScript, that read as text to copy.

test('placeholder chips insert a column at the cursor; without JavaScript they are text to copy @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page)
	await page.goto('/enrichments')
	await pageSettled(page)
	const form = page.locator('form#enrichment')
	const prompt = form.getByLabel('Prompt')
	const leads = form.getByRole('list', { name: 'Lead columns' })
	await expect(leads).toBeVisible()
	await expect(leads.getByRole('listitem')).toContainText(['{{first_name}}', '{{company_name}}'])
	await expect(form.getByRole('list', { name: 'Company list columns' })).toContainText('{{domain}}')
	// no wall of placeholders in running text any more
	await expect(form.getByText(/^Columns: \{\{/)).toHaveCount(0)

	await form.getByLabel('Name').fill('Opener')
	await form.getByLabel('Output column').fill('opener')
	if (jsEnabled(testInfo)) {
		await prompt.fill('Write an opener for  at their company.')
		// the cursor after "for ", as a click there leaves it
		await prompt.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(20, 20))
		await leads.getByRole('button', { name: '{{first_name}}' }).click()
		await expect(prompt).toHaveValue('Write an opener for {{first_name}} at their company.')
		// the focus is back in the prompt, the cursor after what was inserted
		await expect(prompt).toBeFocused()
		await page.keyboard.type(' (')
		await expect(prompt).toHaveValue('Write an opener for {{first_name}} ( at their company.')
		// a selection is replaced
		await prompt.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(40, 53))
		await leads.getByRole('button', { name: '{{company_name}}' }).click()
		await expect(prompt).toHaveValue('Write an opener for {{first_name}} ( at {{company_name}}.')
	} else {
		// text to copy, not buttons that would do nothing
		await expect(leads.getByRole('button')).toHaveCount(0)
		await prompt.fill('Write an opener for {{first_name}} ( at {{company_name}}.')
	}
	await form.getByRole('button', { name: 'Save enrichment' }).click()
	await expect(page.getByTestId('enrichment-list')).toContainText('Opener')
	// saved as typed: the same {{placeholder}} text as ever
	const saved = await withDatabase(async (client) => {
		const { rows } = await client.query<{ prompt: string }>(
			`select prompt from ai_enrichments
			 where user_id = (select id from auth.users where email = $1)`,
			[email],
		)
		return rows[0]!.prompt
	})
	expect(saved).toBe('Write an opener for {{first_name}} ( at {{company_name}}.')
})
