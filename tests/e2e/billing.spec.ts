import { expect, test } from '@playwright/test'
import { expectFitsWidth, joinTeam, markOnboarded, PLANS, subscribeTo } from './billing-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, signedUp, signUp } from './support.ts'

// Billing in test mode (no Stripe): the test-payment page stands in for Stripe Checkout.
// Every test runs with JavaScript on and off (the two Playwright projects).

// Each test signs up and pays through several pages: more than the default 30 s on a busy machine.
test.describe.configure({ timeout: 90_000 })

test('a new user subscribes through the test-payment page and is let through @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await signUp(page)
	await markOnboarded(email)
	await expect(page).toHaveURL(/\/subscription$/)
	await expect(page.getByRole('heading', { name: 'Subscription', level: 1 })).toBeVisible()
	await expect(page.getByTestId('test-mode')).toBeVisible()
	await expect(page.getByTestId('current-plan')).toHaveText('No active plan')
	for (const plan of PLANS) {
		await expect(page.getByRole('heading', { name: plan, level: 3 })).toBeVisible()
	}
	if (jsEnabled(testInfo)) {
		await page.reload() // without the sign-up toast
		await expectNoSeriousA11yViolations(page)
	}

	await page.getByRole('button', { name: 'Subscribe to Monthly Starter' }).click()
	await expect(page).toHaveURL(/\/test-payment\/[0-9a-f-]{36}$/)
	await expect(page.getByTestId('test-mode')).toContainText('not a real payment page')
	await expect(page.getByText('Monthly Starter plan')).toBeVisible()
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)
	await page.getByRole('button', { name: 'Pay $49.00 (test)' }).click()

	// let through to the dashboard, which shows the plan and its credits
	await expect(page).toHaveURL((url) => url.pathname === '/')
	await expect(page.getByTestId('plan-name')).toHaveText('Monthly Starter')
	await expect(page.getByTestId('credits')).toHaveText('2,000')
	await expect(page.getByTestId('credit-balance')).toContainText('2,000')

	await page.goto('/subscription')
	await expect(page.getByTestId('current-plan')).toHaveText('Monthly Starter')
	await expect(page.getByTestId('plan-1')).toContainText('Your current plan')
	await expect(page.getByRole('button', { name: 'Switch to Yearly Unlimited' })).toBeVisible()
})

test('cancel at period end keeps access; resume takes it back @no-js', async ({ page }) => {
	// the sign-up form is walked in auth.spec.ts and the first test here
	await signedUp(page)
	await subscribeTo(page, 'Yearly Starter', '$470.00')
	await expect(page).toHaveURL((url) => url.pathname === '/')

	await page.goto('/subscription')
	const expires = await page.getByTestId('expire-date').textContent()
	// one click does not cancel: the confirm step opens first
	await expect(page.getByRole('button', { name: 'Cancel at period end' })).toBeHidden()
	await page.locator('summary', { hasText: 'Cancel the subscription' }).click()
	await page.getByRole('button', { name: 'Cancel at period end' }).click()
	await expect(page.getByText(`Your subscription ends on ${expires}`).first()).toBeVisible()
	await expect(page.getByText('Ends on', { exact: true })).toBeVisible()
	await expect(page.getByRole('button', { name: 'Resume subscription' })).toBeVisible()

	// still let through until expire_date
	await page.goto('/')
	await expect(page).toHaveURL((url) => url.pathname === '/')
	await expect(page.getByTestId('plan-name')).toHaveText('Yearly Starter')
	await expect(page.getByText(`Ends on ${expires}`)).toBeVisible()

	await page.goto('/subscription')
	await page.getByRole('button', { name: 'Resume subscription' }).click()
	await expect(page.getByText('Your subscription renews as usual.').first()).toBeVisible()
	await expect(page.getByText('Renews on', { exact: true })).toBeVisible()
})

test('a declined payment starts nothing @no-js', async ({ page }) => {
	await signUp(page)
	await page.getByRole('button', { name: 'Subscribe to Monthly Unlimited' }).click()
	await expect(page).toHaveURL(/\/test-payment\//)
	const checkout = page.url()
	await page.getByRole('button', { name: 'Decline payment' }).click()
	await expect(page).toHaveURL(/\/subscription$/)
	await expect(page.getByText('Payment declined. Nothing was charged.').first()).toBeVisible()
	await expect(page.getByTestId('current-plan')).toHaveText('No active plan')

	const response = await page.request.get('/', { maxRedirects: 0 })
	expect(response.headers()['location']).toBe('/subscription')
	// the declined checkout cannot be paid afterwards
	await page.goto(checkout)
	await expect(page.getByTestId('checkout-status')).toHaveText('This checkout is declined.')
	await expect(page.getByRole('button', { name: /Pay/ })).toHaveCount(0)
})

test('credit packs are bought through the same checkout and shown in the ledger @no-js', async ({
	page,
}, testInfo) => {
	await signedUp(page)
	await page.goto('/purchase')
	await expect(page.getByRole('heading', { name: 'Purchase credits', level: 1 })).toBeVisible()
	await expect(page.getByTestId('ledger-empty')).toBeVisible()
	await page.getByRole('button', { name: 'Buy 5,000 credits' }).click()
	await expect(page).toHaveURL(/\/test-payment\//)
	await page.getByRole('button', { name: 'Pay $79.00 (test)' }).click()

	await expect(page).toHaveURL(/\/purchase$/)
	await expect(page.getByTestId('purchase-balance')).toHaveText('5,000')
	const row = page.getByTestId('ledger').getByRole('row').nth(1)
	await expect(row).toContainText('Credit pack')
	await expect(row).toContainText('+5,000')
	await expect(row).toContainText('Credit pack bought for $79.00')
	// with the time of day, not the date alone, and its zone
	await expect(row.locator('time')).toHaveText(/\d{1,2}:\d{2}\s?[AP]M \S+$/)
	if (jsEnabled(testInfo)) {
		await page.reload() // without the payment toast
		await expectNoSeriousA11yViolations(page)
	}

	// bad pack sizes get a message and no checkout
	await page.goto('/purchase')
	const bad = await page.request.post('/purchase', {
		form: { intent: 'buy', credits: '-5' },
		maxRedirects: 0,
	})
	expect(bad.status()).toBe(400)
	expect(await bad.text()).toContain('Choose one of the credit packs shown.')
})

test('billing screens work at 390 px', async ({ page }) => {
	await page.setViewportSize({ width: 390, height: 844 })
	await markOnboarded((await signUp(page)).email)
	await expect(page.getByTestId('plan-4')).toBeVisible()
	await expectFitsWidth(page, 390, '[data-testid^="plan-"]')
	await page.getByRole('button', { name: 'Subscribe to Yearly Unlimited' }).click()
	await expect(page.getByRole('button', { name: 'Pay $1,430.00 (test)' })).toBeVisible()
	await expectFitsWidth(page, 390, 'main button')
	await page.getByRole('button', { name: 'Pay $1,430.00 (test)' }).click()
	await expect(page.getByTestId('plan-name')).toHaveText('Yearly Unlimited')
	await page.goto('/purchase')
	await expectFitsWidth(page, 390, '[data-testid^="pack-"]')
})

test('team members see who owns billing, have nothing to press, and get 403', async ({
	browser,
	page,
}) => {
	test.setTimeout(180_000) // four accounts
	const owner = await signedUp(page)
	await subscribeTo(page, 'Monthly Starter', '$49.00')
	await page.goto('/purchase')
	await page.getByRole('button', { name: 'Buy 1,000 credits' }).click()
	await expect(page).toHaveURL(/\/test-payment\//)
	const ownerCheckout = new URL(page.url()).pathname

	for (const role of ['admin', 'editor'] as const) {
		const context = await browser.newContext()
		const memberPage = await context.newPage()
		const member = await signedUp(memberPage)
		await joinTeam(owner.email, member.email, role)

		await memberPage.goto('/subscription')
		await expect(memberPage.getByTestId('billing-owner')).toContainText(owner.email)
		await expect(memberPage.getByTestId('current-plan')).toHaveText('Monthly Starter')
		await expect(memberPage.locator('main').getByRole('button')).toHaveCount(0)
		await memberPage.goto('/purchase')
		await expect(memberPage.getByTestId('billing-owner')).toContainText(owner.email)
		await expect(memberPage.locator('main').getByRole('button')).toHaveCount(0)
		await expect(memberPage.getByRole('link', { name: 'Subscription', exact: true })).toHaveCount(0)

		for (const [path, form] of [
			['/subscription', { intent: 'subscribe', planId: '2' }],
			['/subscription', { intent: 'cancel' }],
			['/purchase', { intent: 'buy', credits: '1000' }],
			[ownerCheckout, { intent: 'complete' }],
		] as const) {
			const response = await memberPage.request.post(path, { form, maxRedirects: 0 })
			expect(response.status(), `${role} ${path} ${form.intent}`).toBe(403)
		}
		const view = await memberPage.goto(ownerCheckout)
		expect(view?.status()).toBe(403)
		await context.close()
	}

	// the owner's checkout is untouched, and another account gets 404 for it
	await page.goto(ownerCheckout)
	await expect(page.getByRole('button', { name: 'Pay $19.00 (test)' })).toBeVisible()
	const context = await browser.newContext()
	const stranger = await context.newPage()
	await signedUp(stranger)
	const response = await stranger.goto(ownerCheckout)
	expect(response?.status()).toBe(404)
	await context.close()
})
