import { expect, test, type Page } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { baseURL } from '../../playwright.config.ts'
import { jsEnabled, withDatabase } from './support.ts'

// sign-up, a form and /settings in one test, on a shared machine
test.describe.configure({ timeout: 60_000 })

async function onboardingRow(email: string) {
	return withDatabase(async (db) => {
		const { rows } = await db.query<{
			answers: Record<string, unknown>
			phone: string | null
			completed_at: Date | null
		}>(
			`select o.answers, o.phone, o.completed_at from onboarding o
			join auth.users u on u.id = o.user_id where u.email = $1`,
			[email],
		)
		return rows[0] ?? null
	})
}

async function fillAnswers(page: Page, options: { website?: string } = {}) {
	await page.getByLabel('Company', { exact: true }).fill('Acme Outreach')
	await page.getByLabel('Website').fill(options.website ?? 'acme-outreach.example')
	await page.getByLabel('Your role').selectOption('Agency')
	await page.getByLabel('Team size').selectOption('2-10')
	await page.getByLabel('Find leads').check()
	await page.getByLabel('Cold email outreach').check()
	await page.getByLabel('How did you hear about us?').selectOption('Podcast or video')
}

// the hydrated combobox (before hydration the native select has the same role and name)
const country = (page: Page) =>
	page.getByRole('combobox', { name: 'Country' }).and(page.locator('input'))

test('an owner with a plan is sent to /onboarding until it is completed @no-js', async ({
	page,
}, testInfo) => {
	const { email } = await subscribedAccount(page, { onboarded: false })
	await page.goto('/create-leads')
	await expect(page).toHaveURL(/\/onboarding$/)
	await expect(page).toHaveTitle(/^Welcome \| /)
	await expect(page.getByRole('heading', { name: 'Tell us about your company' })).toBeVisible()
	// account screens stay open meanwhile
	await page.goto('/settings')
	await expect(page).toHaveURL(/\/settings$/)
	await page.goto('/onboarding')
	await fillAnswers(page)
	if (jsEnabled(testInfo)) {
		// the fake IP lookup answers GB
		await expect(country(page)).toHaveValue('United Kingdom (+44)')
	} else {
		// without JavaScript: a native select with the preferred country (US)
		await page.getByLabel('Country', { exact: true }).selectOption('GB')
	}
	await page.getByLabel('Phone number').fill('020 7946 0958')
	await page.getByRole('button', { name: 'Finish and continue' }).click()
	await expect(page).toHaveURL(`${baseURL}/`)
	const row = await onboardingRow(email)
	expect(row?.phone).toBe('+442079460958')
	expect(row?.completed_at).not.toBeNull()
	expect(row?.answers).toMatchObject({
		company: 'Acme Outreach',
		website: 'https://acme-outreach.example',
		role: 'Agency',
		teamSize: '2-10',
		goals: ['Find leads', 'Cold email outreach'],
		heardFrom: 'Podcast or video',
	})
	// done: the product opens, and /onboarding sends on
	await page.goto('/create-leads')
	await expect(page).toHaveURL(/\/create-leads$/)
	await page.goto('/onboarding')
	await expect(page).toHaveURL(`${baseURL}/`)

	// editable later in /settings
	await page.goto('/settings')
	const section = page.locator('section', { hasText: 'Company details' })
	await expect(section.getByLabel('Company', { exact: true })).toHaveValue('Acme Outreach')
	await expect(section.getByLabel('Phone number')).toHaveValue('020 7946 0958')
	await section.getByLabel('Company', { exact: true }).fill('Acme Outreach Ltd')
	await section.getByRole('button', { name: 'Save company details' }).click()
	await expect(page.getByText('Company details saved')).toBeVisible()
	expect((await onboardingRow(email))?.answers).toMatchObject({ company: 'Acme Outreach Ltd' })
})

test('the failed IP lookup falls back to the preferred country and says so @no-js', async ({
	page,
}, testInfo) => {
	test.skip(!jsEnabled(testInfo), 'the lookup runs in the browser')
	const errors: string[] = []
	page.on('console', (message) => {
		if (message.type() === 'error') errors.push(message.text())
	})
	await page.route('**/ip-country/json/**', (route) =>
		route.continue({ headers: { ...route.request().headers(), 'x-fake-status': '503' } }),
	)
	await subscribedAccount(page, { onboarded: false })
	await page.goto('/onboarding')
	await expect(country(page)).toHaveValue('United States (+1)')
	await expect.poll(() => errors.some((e) => e.includes('unable to fetch the country'))).toBe(true)
})

test('the country combobox filters, says when nothing matches and works by keyboard @no-js', async ({
	page,
}, testInfo) => {
	test.skip(!jsEnabled(testInfo), 'the combobox is the JavaScript enhancement')
	await subscribedAccount(page, { onboarded: false })
	await page.goto('/onboarding')
	const box = country(page)
	await expect(box).toHaveValue('United Kingdom (+44)')
	await box.click()
	await box.fill('zzzz')
	await expect(page.getByText('Sorry, no matching options.')).toBeVisible()
	await expect(box).toHaveAttribute('aria-expanded', 'true')
	await box.fill('fran')
	await expect(page.getByRole('option', { name: 'France (+33)' })).toBeVisible()
	await box.press('ArrowDown')
	await box.press('Enter')
	await expect(box).toHaveValue('France (+33)')
	await expect(box).toHaveAttribute('aria-expanded', 'false')

	// a US number is not a French one: checked in the browser too
	await fillAnswers(page)
	const phone = page.getByLabel('Phone number')
	await phone.fill('(201) 555-0123')
	await page.getByRole('button', { name: 'Finish and continue' }).click()
	await expect(page.getByText('Enter a valid phone number for France.')).toBeVisible()
	await expect(page).toHaveURL(/\/onboarding$/)
	// only digits, spaces, parentheses, plus and hyphen get in
	await phone.fill('')
	await phone.pressSequentially('01 abc 23-45-67-89')
	await expect(phone).toHaveValue('01  23-45-67-89')
	await phone.fill('01 23 45 67 89')
	await page.getByRole('button', { name: 'Finish and continue' }).click()
	await expect(page).toHaveURL(`${baseURL}/`)
})

test('the server refuses a bad phone, a website that is not a URL and over-long fields @no-js', async ({
	page,
}, testInfo) => {
	test.skip(jsEnabled(testInfo), 'the server-side checks, with JavaScript off')
	await subscribedAccount(page, { onboarded: false })
	await page.goto('/onboarding')
	await fillAnswers(page, { website: 'not a website' })
	await page.getByLabel('Country', { exact: true }).selectOption('FR')
	await page.getByLabel('Phone number').fill('(201) 555-0123')
	await page.getByRole('button', { name: 'Finish and continue' }).click()
	await expect(page.getByText('Enter a valid phone number for France.')).toBeVisible()
	await expect(page.getByText('Enter a website address, like example.com.')).toBeVisible()
	// the answers stay in the form
	await expect(page.getByLabel('Company', { exact: true })).toHaveValue('Acme Outreach')
	await expect(page.getByLabel('Country', { exact: true })).toHaveValue('FR')

	// around the browser's maxlength: straight to the action
	const form = {
		company: 'x'.repeat(121),
		website: `https://${'a'.repeat(200)}.com`,
		role: 'Agency',
		teamSize: '2-10',
		goals: 'Find leads',
		phoneCountry: 'US',
		phone: '+1 (201) 555-0123 1234567890',
	}
	const response = await page.request.post('/onboarding', {
		form,
		headers: { Origin: baseURL },
		maxRedirects: 0,
	})
	expect(response.status()).toBe(400)
	const html = await response.text()
	expect(html).toContain('Use at most 120 characters.')
	expect(html).toContain('Use at most 200 characters.')
	expect(html).toContain('Use at most 25 characters.')
	const letters = await page.request.post('/onboarding', {
		form: { ...form, company: 'Acme', website: '', phone: '201-555-CALL' },
		headers: { Origin: baseURL },
		maxRedirects: 0,
	})
	expect(letters.status()).toBe(400)
	expect(await letters.text()).toContain('Use only digits, spaces, parentheses, plus and hyphen.')
})

test('team members are not sent to onboarding', async ({ page, browser }) => {
	const { email: ownerEmail } = await subscribedAccount(page, { onboarded: false })
	const other = await browser.newPage()
	const { email: memberEmail } = await subscribedAccount(other, { onboarded: false })
	await withDatabase(async (db) => {
		const { rows } = await db.query<{ id: string; email: string }>(
			'select id, email from auth.users where email = any($1)',
			[[ownerEmail, memberEmail]],
		)
		const owner = rows.find((r) => r.email === ownerEmail)!
		const member = rows.find((r) => r.email === memberEmail)!
		await db.query(
			`insert into team_members (user_id, email, role, member_user_id, status)
			values ($1, $2, 'admin', $3, 'active')`,
			[owner.id, memberEmail, member.id],
		)
		await db.query('update profiles set primary_user_id = $1 where user_id = $2', [
			owner.id,
			member.id,
		])
	})
	await other.goto('/create-leads')
	await expect(other).toHaveURL(/\/create-leads$/)
	await other.goto('/onboarding')
	await expect(other).toHaveURL(`${baseURL}/`)
	await other.close()
})
