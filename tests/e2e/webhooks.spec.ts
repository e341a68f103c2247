import { expect, test } from '@playwright/test'
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver/server.ts'
import { subscribedAccount } from './leads-support.ts'
import { jsEnabled } from './support.ts'

// Issue 37: an owner adds a webhook endpoint, copies its secret (shown once), sends a test event
// that a real receiver verifies with the standardwebhooks package, rotates the secret with an
// overlap, pauses, resumes and deletes it: with JavaScript on and off.
let receiver: WebhookReceiver
test.beforeAll(async () => {
	receiver = await startWebhookReceiver()
})
test.afterAll(async () => {
	await receiver.close()
})

test('add, test, rotate, pause, resume and delete a webhook endpoint @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page)
	await page.goto('/developers/webhooks')
	await expect(page).toHaveTitle('Webhooks | Leadsmith')
	await expect(page.getByText('No endpoints yet')).toBeVisible()

	// bad input is answered at its field and adds nothing
	await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks`)
	await page.getByRole('button', { name: 'Add endpoint' }).click()
	await expect(page.getByText('Choose at least one event.')).toBeVisible()
	await expect(page.getByTestId('endpoint-url')).toHaveCount(0)

	const path = `/hooks-${jsEnabled(testInfo) ? 'js' : 'nojs'}`
	await page.getByLabel('Endpoint URL').fill(`${receiver.url}${path}`)
	await page.getByLabel('Any job failed (with the reason)').check()
	await page.getByRole('button', { name: 'Add endpoint' }).click()
	await expect(page.getByText('Endpoint added. Copy its signing secret now.')).toBeVisible()
	const secret = (await page.getByTestId('new-secret').textContent())!.trim()
	expect(secret).toMatch(/^whsec_/)
	receiver.secrets.push(secret)
	// shown once: gone on the next load
	await page.reload()
	await expect(page.getByTestId('new-secret')).toHaveCount(0)
	await expect(page.getByTestId('endpoint-url')).toHaveText(`${receiver.url}${path}`)
	await expect(page.locator('body')).not.toContainText(secret.slice(6, 20))

	// a test event, signed: the receiver's verifier accepts it and the log shows it
	await page.getByRole('button', { name: 'Send test event' }).click()
	await expect(page.getByText(/Test event sent/)).toBeVisible()
	await expect
		.poll(
			() => receiver.received.filter((r) => r.path === path && r.verifiedWith.length === 1).length,
			{
				timeout: 20_000,
			},
		)
		.toBe(1)
	await expect
		.poll(
			async () => {
				await page.reload()
				return page.getByTestId('deliveries').getByText('succeeded').count()
			},
			{ timeout: 20_000 },
		)
		.toBe(1)

	// rotate with a 24-hour overlap: a new secret, both sign meanwhile
	await page.getByRole('button', { name: 'Rotate secret' }).click()
	await expect(page.getByText('Secret rotated. Copy the new one now.')).toBeVisible()
	const fresh = (await page.getByTestId('new-secret').textContent())!.trim()
	expect(fresh).not.toBe(secret)
	receiver.secrets.push(fresh)
	await expect(page.getByTestId('overlap')).toBeVisible()
	await page.getByRole('button', { name: 'Send test event' }).click()
	await expect
		.poll(() => receiver.received.filter((r) => r.path === path).at(1)?.verifiedWith.length ?? 0, {
			timeout: 20_000,
		})
		.toBe(2)

	await page.getByRole('button', { name: 'Pause' }).click()
	await expect(page.getByText('Endpoint paused')).toBeVisible()
	await expect(page.getByRole('button', { name: 'Send test event' })).toHaveCount(0)
	await page.getByRole('button', { name: 'Resume' }).click()
	await expect(page.getByText('Endpoint enabled')).toBeVisible()

	await page.getByTestId('confirm-delete').locator('summary').click()
	await page.getByRole('button', { name: /^Delete “/ }).click()
	await expect(page.getByText('Endpoint deleted')).toBeVisible()
	await expect(page.getByTestId('endpoint-url')).toHaveCount(0)
})
