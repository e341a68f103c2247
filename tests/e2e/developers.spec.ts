import { expect as baseExpect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { pageSettled } from './support.ts'

// API tokens from the Developers page: made with permissions, shown once, used against the
// API, revoked (the next request fails), with JavaScript and without.
test.describe.configure({ timeout: 90_000 })
const expect = baseExpect.configure({ timeout: 15_000 })

test('an owner creates a token, calls the API with it and revokes it @no-js', async ({
	page,
	request,
}) => {
	await subscribedAccount(page)
	await page.goto('/')
	await page.getByRole('link', { name: 'Developers' }).first().click()
	await expect(page).toHaveURL(/\/developers$/)
	await expect(page.getByRole('navigation', { name: 'Developers' })).toBeVisible()
	await pageSettled(page)

	// a token without a permission is refused at the field, and nothing is made
	await page.getByLabel('Name').fill('n8n workflow')
	await page.getByRole('button', { name: 'Create token' }).click()
	await expect(page.getByText('Choose at least one permission')).toBeVisible()
	await expect(page.getByTestId('api-token')).toHaveCount(0)

	await page.getByLabel('Name').fill('n8n workflow')
	await page.getByLabel('Lists and leads: read').check()
	await page.getByRole('button', { name: 'Create token' }).click()
	const shown = page.getByTestId('new-token')
	await expect(shown).toHaveValue(/^ls_live_/)
	const token = await shown.inputValue()
	await expect(page.getByTestId('api-token')).toContainText('lists:read')
	await expect(page.getByTestId('api-token')).toContainText('Last used never')

	const authorization = { Authorization: `Bearer ${token}` }
	const lists = await request.get('/api/v1/lead-lists', { headers: authorization })
	expect(lists.status()).toBe(200)
	expect(await lists.json()).toMatchObject({ object: 'list', data: [] })
	// the page's session cookie is no credential for the API
	expect((await page.request.get('/api/v1/lead-lists')).status()).toBe(401)

	// shown once: a reload no longer has it, and the list says when it was last used
	await page.goto('/developers')
	await expect(page.getByTestId('new-token')).toHaveCount(0)
	await expect(page.getByTestId('api-token')).not.toContainText('Last used never')

	await pageSettled(page)
	await page.getByTestId('revoke-token').getByText('Revoke n8n workflow').click()
	await page.getByRole('button', { name: 'Revoke “n8n workflow”' }).click()
	await expect(page.getByText('Token “n8n workflow” revoked')).toBeVisible()
	await expect(page.getByTestId('api-token')).toHaveCount(0)
	const after = await request.get('/api/v1/lead-lists', { headers: authorization })
	expect(after.status()).toBe(401)
	expect(after.headers()['content-type']).toBe('application/problem+json')
})

test('the API reference lists the operations and links the OpenAPI document', async ({
	page,
	request,
}) => {
	await subscribedAccount(page)
	await page.goto('/developers/api')
	await expect(page.getByRole('heading', { name: /GET \/lead-lists\/\{id\}\/leads/ })).toBeVisible()
	const document = await request.get('/api/v1/openapi.json')
	expect((await document.json()).openapi).toBe('3.1.0')
})
