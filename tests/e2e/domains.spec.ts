import { request as httpRequest } from 'node:http'
import { expect, test } from '@playwright/test'
import { baseURL } from '../../playwright.config.ts'
import { joinTeam } from './billing-support.ts'
import { publishDns, subscribedDomains, uniqueDomain } from './domains-support.ts'
import { subscribedAccount } from './leads-support.ts'
import { expectNoSeriousA11yViolations, jsEnabled, signedUp, withDatabase } from './support.ts'
import { chooseOption } from './ui-support.ts'

// Domains, domain subscriptions and URL forwarding, with JavaScript on and off.
test.describe.configure({ timeout: 90_000 })

function getWithHost(host: string, path: string) {
	const { port } = new URL(baseURL)
	return new Promise<{ status: number; location?: string }>((resolve, reject) => {
		httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
			res.resume()
			resolve({ status: res.statusCode!, location: res.headers.location })
		})
			.on('error', reject)
			.end()
	})
}

test('import domains: a result per line (dialog with JavaScript, a plain page without) @no-js', async ({
	page,
}, testInfo) => {
	await subscribedAccount(page)
	const fresh = uniqueDomain('acme')
	await page.goto('/domains')
	await expect(page.getByRole('heading', { name: 'Domains', level: 1 })).toBeVisible()
	await expect(page.getByTestId('domains-empty')).toBeVisible()
	if (jsEnabled(testInfo)) {
		await page.getByRole('button', { name: 'Import domains' }).click()
		await expect(page.getByRole('dialog', { name: 'Import domains' })).toBeVisible()
		await expect(page).toHaveURL(/\/domains$/)
	} else {
		await page.getByRole('link', { name: 'Import domains' }).click()
		await expect(page).toHaveURL(/\/domains\/import$/)
	}
	await page
		.getByLabel('Domains', { exact: true })
		.fill(`${fresh.toUpperCase()}, ${fresh}\nnot_valid.com\nacme.notarealtld`)
	await page.getByRole('button', { name: 'Import domains' }).last().click()
	const results = page.getByTestId('import-results')
	await expect(results.locator('tr[data-result="added"]')).toHaveCount(1)
	await expect(results.locator('tr[data-result="duplicate"]')).toContainText('repeats line 1')
	await expect(results.locator('tr[data-result="invalid"]')).toHaveCount(2)
	await expect(results).toContainText('not a public domain ending')
	if (jsEnabled(testInfo)) await expectNoSeriousA11yViolations(page)

	await page.goto('/domains')
	await expect(page.locator(`tr[data-domain="${fresh}"]`)).toBeVisible()
	// the dns-check job ran (the e2e resolver answers nothing for these names: records missing);
	// with JavaScript the page refreshes itself, without it a reload shows the same
	await expect(async () => {
		if (!jsEnabled(testInfo)) await page.reload()
		await expect(page.locator(`tr[data-domain="${fresh}"]`)).toContainText('Checked', {
			timeout: 1_000,
		})
	}).toPass({ timeout: 30_000 })
})

test('subscribe a domain through /checkout, forward it, and the server redirects its Host @no-js', async ({
	page,
}) => {
	test.setTimeout(180_000)
	const { email } = await subscribedAccount(page)
	const name = uniqueDomain('fw')
	await withDatabase(async (client) => {
		await client.query(
			`insert into domains (user_id, name, source)
			select id, $2, 'imported' from auth.users where email = $1`,
			[email, name],
		)
	})
	await page.goto('/domain-subscriptions')
	await page.getByRole('link', { name: `Subscribe ${name}` }).click()
	await expect(page).toHaveURL(/\/checkout\?domain=/)
	await expect(page.getByTestId('checkout-total')).toHaveText('$15.00 a month')
	await page.getByRole('button', { name: /^Pay/ }).click()
	await expect(page).toHaveURL(/\/test-payment\//)
	await page.getByRole('button', { name: 'Pay $15.00 (test)' }).click()
	await expect(page).toHaveURL(/\/domain-subscriptions/)
	const row = page.locator(`tr[data-domain="${name}"]`)
	await expect(row).toContainText('active')
	await expect(row).toContainText('Renews')

	// another of the account's domains already forwards to this one
	const back = uniqueDomain('fwback')
	const [backId] = await subscribedDomains(email, [back])
	await withDatabase((client) =>
		client.query(`update domains set forward_to = $2, redirect_code = 302 where id = $1`, [
			backId,
			`https://www.${name}/`,
		]),
	)

	await page.goto('/url-forward')
	await expect(page.getByTestId('record-value')).toBeVisible()
	// bad input first, corrected and saved in the same page: a forward-to address back at the
	// domain is a loop, also through another forwarded domain, and so is one that is not http(s)
	const save = page.getByRole('button', { name: 'Save forwarding' })
	await chooseOption(page, page, 'Domain', name)
	await page.getByLabel('Forward to').fill(`https://www.${name}/loop`)
	await save.click()
	await expect(page.getByText('would loop')).toBeVisible()
	await page.getByLabel('Forward to').fill(`https://${back}/x`)
	await save.click()
	await expect(
		page.getByText(`${back} forwards back to ${name}, so forwarding there would loop.`),
	).toBeVisible()
	await page.getByLabel('Forward to').fill('ftp://example.org/file')
	await save.click()
	await expect(page.getByText('Forward to an http:// or https:// address.')).toBeVisible()
	await expect(page.getByText('would loop')).toHaveCount(0)
	await page.getByLabel('Forward to').fill('https://example.org/landing')
	await page.getByLabel('302 Found (temporary)').check()
	await page.getByLabel('Keep the path and query').check()
	await save.click()
	const forwardRow = page.locator(`tr[data-domain="${name}"]`)
	await expect(forwardRow).toContainText('302 → https://example.org/landing')
	// saved, but not live: nobody proved control of the domain yet
	await expect(forwardRow).toContainText('Not live until the domain is verified')
	expect((await getWithHost(name, '/pricing?x=1')).status).not.toBe(302)
	await forwardRow.getByRole('button', { name: `Check now ${name}` }).click()
	// Check now asks DNS while the page waits: slow on a busy machine
	await expect(page.getByText(`The TXT record for ${name} was not found yet.`)).toBeVisible({
		timeout: 20_000,
	})
	expect((await getWithHost(name, '/pricing?x=1')).status).not.toBe(302)

	// the owner adds the TXT record the page shows at the domain's DNS host, and checks now
	const verification = forwardRow.getByTestId('verification')
	const txtHost = await verification.getByTestId('verification-host').innerText()
	const txtValue = await verification.getByTestId('verification-value').innerText()
	expect(txtHost).toBe(`_leadsmith-verify.${name}`)
	publishDns(txtHost, { TXT: [txtValue] })
	await forwardRow.getByRole('button', { name: `Check now ${name}` }).click()
	await expect(page.getByText(`${name} is verified: its forwarding is live`)).toBeVisible({
		timeout: 20_000,
	})
	await expect(forwardRow.getByTestId('verification')).toHaveText('Verified')
	await expect(forwardRow.getByRole('button', { name: `Check now ${name}` })).toHaveCount(0)
	await expect
		.poll(() => getWithHost(name, '/pricing?x=1'))
		.toEqual({ status: 302, location: 'https://example.org/landing/pricing?x=1' })
	// the app's own host is never redirected
	expect((await getWithHost(new URL(baseURL).host, '/healthz')).status).toBe(200)

	// cancel at period end
	await page.goto('/domain-subscriptions')
	await page.getByRole('button', { name: `Cancel at period end ${name}` }).click()
	await expect(page.locator(`tr[data-domain="${name}"]`)).toContainText('cancelled at period end')
})

test('scope routes: read-only views, cannot change; no scope is refused', async ({ browser }) => {
	const ownerPage = await browser.newPage()
	const { email: ownerEmail } = await subscribedAccount(ownerPage)
	const [domainId] = await subscribedDomains(ownerEmail, [uniqueDomain('scope')])
	await ownerPage.close()

	const page = await browser.newPage()
	const { email } = await signedUp(page)
	await joinTeam(ownerEmail, email, 'editor')
	for (const path of ['/url-forward', '/ordering-inboxes', '/checkout', '/domains']) {
		const response = await page.goto(path)
		expect(response?.status(), path).toBe(403)
	}
	await withDatabase((client) =>
		client.query(`update team_members set scopes = '{domain-management:read}' where email = $1`, [
			email,
		]),
	)
	for (const path of ['/url-forward', '/ordering-inboxes', '/checkout', '/domains']) {
		const response = await page.goto(path)
		expect(response?.status(), path).toBe(200)
	}
	await page.goto('/url-forward')
	await expect(page.getByTestId('read-only')).toBeVisible()
	await page.goto('/ordering-inboxes')
	await expect(page.getByTestId('read-only')).toBeVisible()
	const post = await page.request.post('/url-forward', {
		form: { intent: 'forward', domainId: domainId!, url: 'https://example.org', code: '301' },
		headers: { Origin: baseURL },
	})
	expect(post.status()).toBe(403)
	const check = await page.request.post('/url-forward', {
		form: { intent: 'check-dns', id: domainId! },
		headers: { Origin: baseURL },
	})
	expect(check.status()).toBe(403)
	const pay = await page.request.post(`/checkout?domain=${domainId}`, {
		form: { intent: 'pay', domain: domainId! },
		headers: { Origin: baseURL },
	})
	expect(pay.status()).toBe(403)
	await page.close()
})

/** A date as the app shows it (formatDate: medium, UTC). */
function shown(date: Date) {
	return date.toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' })
}

test('domain subscriptions: the renewal date, cancel at period end, resume; an ended one says so @no-js', async ({
	page,
	browser,
}) => {
	const { email } = await subscribedAccount(page)
	const [renewing, lapsed] = [uniqueDomain('renew'), uniqueDomain('lapsed')]
	const [renewingId, lapsedId] = await subscribedDomains(email, [renewing, lapsed])
	const { expire, subscriptionId } = await withDatabase(async (client) => {
		const { rows } = await client.query<{ id: string; expire_date: Date }>(
			'select id, expire_date from domain_subscriptions where domain_id = $1',
			[renewingId],
		)
		// the lapsed one was cancelled and its month is over
		await client.query(
			`update domain_subscriptions set cancel_at_period_end = true,
				billing_date = now() - interval '32 days', expire_date = now() - interval '2 days'
			where domain_id = $1`,
			[lapsedId],
		)
		return { expire: rows[0]!.expire_date, subscriptionId: rows[0]!.id }
	})
	await page.goto('/domain-subscriptions')
	await expect(page.getByTestId('test-mode-renewal')).toContainText('TEST MODE')
	const row = page.locator(`tr[data-domain="${renewing}"]`)
	await expect(row).toContainText('active')
	await expect(row).toContainText(`Renews ${shown(expire)}`)

	await page.getByRole('button', { name: `Cancel at period end ${renewing}` }).click()
	await expect(page.getByText(`${renewing} ends on ${shown(expire)}`)).toBeVisible()
	await expect(row).toContainText('cancelled at period end')
	await expect(row).toContainText(`Ends ${shown(expire)}`)

	await page.getByRole('button', { name: `Resume ${renewing}` }).click()
	await expect(page.getByText(`${renewing} renews as usual`)).toBeVisible()
	await expect(row).toContainText(`Renews ${shown(expire)}`)
	await expect(page.getByRole('button', { name: `Cancel at period end ${renewing}` })).toBeVisible()

	const ended = page.locator(`tr[data-domain="${lapsed}"]`)
	await expect(ended).toContainText(/Ended \w{3} \d+, \d{4}/)
	await expect(ended.getByRole('link', { name: `Subscribe ${lapsed}` })).toBeVisible()
	await expect(ended.getByRole('button')).toHaveCount(0)

	// another account cannot cancel this subscription
	const other = await browser.newPage()
	await subscribedAccount(other)
	const post = await other.request.post('/domain-subscriptions', {
		form: { intent: 'cancel', id: subscriptionId },
		maxRedirects: 0,
	})
	expect(post.status()).toBe(404)
	await other.close()
	await page.reload()
	await expect(row).toContainText(`Renews ${shown(expire)}`)
})
