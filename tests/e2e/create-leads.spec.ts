import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled } from './support.ts'

test('create leads from an Apollo search and watch the list finish @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page, { credits: 1000 })
	await page.goto('/create-leads')
	await expect(page).toHaveTitle('Create leads | Leadsmith')

	const url = page.getByLabel('Apollo people search')
	await url.fill('https://app.apollo.io/#/people?personTitles[]=cto&personLocations[]=Germany')
	if (jsEnabled(testInfo)) {
		// the filters are read back as you paste
		await expect(page.getByTestId('search-filters')).toContainText(/Job titles:\s*cto/)
	} else {
		await page.getByRole('button', { name: 'Check the search' }).click()
		await expect(page.getByTestId('search-filters')).toContainText(/Person locations:\s*Germany/)
	}
	await page.getByLabel('List name').fill('German CTOs')
	await page.getByLabel('How many leads').fill('40')
	await page.getByLabel('Credits').check()
	await page.getByRole('button', { name: 'Create lead list' }).click()

	await expect(page).toHaveURL(/\/scrape/)
	const row = page.getByTestId('scrape-row').filter({ hasText: 'German CTOs' })
	await expect(row).toBeVisible()
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(row.getByText('Done', { exact: true })).toBeVisible({ timeout: 1000 })
	}).toPass({ timeout: 20_000 })
	await expect(row.getByTestId('found')).toHaveText('40')
	// 40 credits spent of 1,000
	await expect(page.getByTestId('credit-balance')).toContainText('960')
})

test('a search that is not an Apollo people search is refused at the field @no-js', async ({
	page,
}) => {
	await subscribedAccount(page, { credits: 10 })
	const response = await page.request.post('/create-leads', {
		form: {
			intent: 'create',
			name: 'Nope',
			url: 'https://app.apollo.io/#/companies?qKeywords=x',
			count: '5',
			payWith: 'credits',
		},
		maxRedirects: 0,
	})
	expect(response.status()).toBe(400)
	expect(await response.text()).toContain('This is not an Apollo people search')

	const tooMany = await page.request.post('/create-leads', {
		form: {
			intent: 'create',
			name: 'Big',
			url: 'https://app.apollo.io/#/people?personTitles[]=ceo',
			count: '50',
			payWith: 'credits',
		},
		maxRedirects: 0,
	})
	expect(tooMany.status()).toBe(400)
	expect(await tooMany.text()).toContain('Not enough credits: 50 needed, 10 available')

	const zero = await page.request.post('/create-leads', {
		form: {
			intent: 'create',
			name: 'Zero',
			url: 'https://app.apollo.io/#/people?personTitles[]=ceo',
			count: '0',
			payWith: 'credits',
		},
		maxRedirects: 0,
	})
	expect(zero.status()).toBe(400)
	expect(await zero.text()).toContain('Ask for at least 1 lead')
})
