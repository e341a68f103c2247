import { expect, test, type Browser, type Page } from '@playwright/test'
import {
	expectNoSeriousA11yViolations,
	jsEnabled,
	latestMailLink,
	pageSettled,
	PASSWORD,
	signedUp,
	uniqueEmail,
	withDatabase,
} from './support.ts'

// Two browsers, several sign-ups and mails per test (and a shared, busy machine).
test.describe.configure({ timeout: 180_000 })

/** A new account owner with an active plan (billing is another screen's business). */
async function ownerWithPlan(page: Page) {
	// posted, not walked: the sign-up form is auth.spec.ts's business
	const owner = await signedUp(page, { name: 'Olivia Owner' })
	await withDatabase((db) =>
		db.query(
			`insert into subscriptions (user_id, active_plan, status, billing_date, expire_date)
			select id, 2, 'active', now(), now() + interval '30 days' from auth.users where email = $1`,
			[owner.email],
		),
	)
	// onboarding is another screen's business too
	await withDatabase((db) =>
		db.query(
			`insert into onboarding (user_id, completed_at)
			select id, now() from auth.users where email = $1 on conflict (user_id) do nothing`,
			[owner.email],
		),
	)
	return owner
}

async function createWorkspace(page: Page, name: string) {
	await page.goto('/workspaces')
	await page.getByLabel('Name', { exact: true }).fill(name)
	await page.getByRole('button', { name: 'Create workspace' }).click()
	await expect(page.getByTestId('workspace').filter({ hasText: name })).toBeVisible()
}

async function invite(
	page: Page,
	email: string,
	options: { role?: 'Admin' | 'Editor'; workspaces?: string[]; scopes?: string[] } = {},
) {
	await page.goto('/team-members')
	const form = page.locator('form#invite')
	await form.getByLabel('Invitee’s email', { exact: true }).fill(email)
	await form.getByLabel(options.role ?? 'Editor', { exact: true }).check()
	if (options.workspaces) {
		await form.getByLabel('Only the workspaces chosen below').check()
		for (const name of options.workspaces) await form.getByLabel(name, { exact: true }).check()
	} else {
		await form.getByLabel('All workspaces').check()
	}
	for (const scope of options.scopes ?? []) await form.getByLabel(scope).check()
	await form.getByRole('button', { name: 'Send invitation' }).click()
}

/** A second browser: its own cookies, JavaScript as the project says. */
async function newVisitor(browser: Browser) {
	const context = await browser.newContext({
		baseURL: test.info().project.use.baseURL,
		javaScriptEnabled: jsEnabled(test.info()),
	})
	return context.newPage()
}

test('the owner invites; the invitee signs up on the invitation page, sees only its workspace and no billing @no-js', async ({
	page,
	browser,
}) => {
	const owner = await ownerWithPlan(page)
	await createWorkspace(page, 'Acme')
	await createWorkspace(page, 'Globex')

	const inviteeEmail = uniqueEmail('invitee')
	await invite(page, inviteeEmail, { role: 'Editor', workspaces: ['Globex'] })
	await expect(page.getByText(`Invitation sent to ${inviteeEmail}`)).toBeVisible()
	const pending = page.getByTestId('invitation').filter({ hasText: inviteeEmail })
	await expect(pending).toContainText('Editor')
	await expect(pending).toContainText('Globex')
	await expect(pending).toContainText('Expires in 7 days')
	// the sent invitation's form starts over: a second click must not invite again
	await expect(
		page.locator('form#invite').getByLabel('Invitee’s email', { exact: true }),
	).toHaveValue('')

	// a second browser, signed out
	const visitor = await newVisitor(browser)
	const link = await latestMailLink(visitor, inviteeEmail)
	expect(link).toMatch(/\/accept-invitation\?token=[A-Za-z0-9_-]{43}$/)
	await visitor.goto(link)
	await expect(visitor.getByRole('heading', { name: 'Join Olivia Owner’s team' })).toBeVisible()
	await expect(visitor.getByTestId('invitation-summary')).toHaveText(
		`Olivia Owner (${owner.email}) invites ${inviteeEmail} to work in their Leadsmith account as an editor, with access to the workspace Globex.`,
	)
	if (jsEnabled(test.info())) await expectNoSeriousA11yViolations(visitor)
	const signUpForm = visitor.locator('form#accept-signup')
	await signUpForm.getByLabel('Your name').fill('Ivan Invitee')
	await expect(signUpForm.getByLabel('Work email')).toHaveValue(inviteeEmail)
	await signUpForm.getByLabel('Choose a password').fill(PASSWORD)
	await signUpForm.getByRole('button', { name: 'Create account and accept' }).click()
	await visitor.waitForURL((url) => url.pathname === '/')
	await expect(visitor.getByText('You joined Olivia Owner')).toBeVisible()

	// only the allowed workspace, in the switcher and on /workspaces
	const switcher = visitor.getByLabel('Workspace', { exact: true })
	await expect(switcher.locator('option')).toHaveText(['Globex'])
	await visitor.goto('/workspaces')
	await expect(visitor.getByTestId('workspace')).toHaveText([/Globex/])
	await expect(visitor.getByRole('button', { name: 'Create workspace' })).toHaveCount(0)

	// no team or billing for a member: not in the menu, refused by URL
	const nav = visitor.getByRole('navigation', { name: 'Main' }).first()
	await expect(nav.getByRole('link', { name: 'Team members' })).toHaveCount(0)
	await expect(nav.getByRole('link', { name: 'Subscription' })).toHaveCount(0)
	await expect(nav.getByRole('link', { name: 'Purchase credits' })).toHaveCount(0)
	const team = await visitor.goto('/team-members')
	expect(team?.status()).toBe(403)
	await expect(
		visitor.getByText('Only the account owner manages team members and invitations.'),
	).toBeVisible()
	for (const path of ['/subscription', '/purchase']) {
		const response = await visitor.goto(path)
		// billing is the owner's: refused (403), absent (404), or shown with nothing to press
		const status = response?.status()
		expect([200, 403, 404], path).toContain(status)
		if (status === 200) {
			await expect(visitor.getByTestId('billing-owner')).toContainText(owner.email)
			await expect(visitor.getByRole('main').getByRole('button')).toHaveCount(0)
		}
	}

	// the link is single use
	await visitor.goto(link)
	await expect(
		visitor.getByRole('heading', { name: 'This invitation was already accepted' }),
	).toBeVisible()

	// the owner sees the member
	await page.goto('/team-members')
	await expect(page.getByTestId('member').filter({ hasText: inviteeEmail })).toContainText('Joined')
	await expect(page.getByTestId('invitation')).toHaveCount(0)
	await visitor.context().close()
})

test('an existing user signs in on the invitation page; the email must be the invited one @no-js', async ({
	page,
	browser,
}) => {
	await ownerWithPlan(page)
	const visitor = await newVisitor(browser)
	const existing = await signedUp(visitor, { name: 'Erin Existing' })
	// signed in as someone else: the page says so and offers to sign out
	const inviteeEmail = existing.email
	await invite(page, inviteeEmail, { role: 'Admin' })
	await expect(page.getByText(`Invitation sent to ${inviteeEmail}`)).toBeVisible()
	const link = await latestMailLink(visitor, inviteeEmail)

	const other = await newVisitor(browser)
	await signedUp(other)
	await other.goto(link)
	await expect(other.getByText('but this invitation is for')).toBeVisible()
	await other.getByRole('button', { name: /^Sign out/ }).click()
	await expect(other.locator('form#accept-signin')).toBeVisible()
	await other.context().close()

	// the email must be the invited one, whatever the form sends
	const token = new URL(link).searchParams.get('token')!
	const wrong = await page.request.post('/accept-invitation', {
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		data: new URLSearchParams({
			intent: 'signin',
			token,
			email: 'someone-else@example.com',
			password: PASSWORD,
		}).toString(),
		maxRedirects: 0,
	})
	expect(wrong.status()).toBe(400)
	expect(await wrong.text()).toContain(`This invitation is for ${inviteeEmail}.`)

	// the existing user, signed out, signs in right there
	await visitor.context().clearCookies()
	await visitor.goto(link)
	const signIn = visitor.locator('form#accept-signin')
	await expect(signIn.getByLabel('Email')).toHaveValue(inviteeEmail)
	await signIn.getByLabel('Password').fill('wrong-password-1')
	await signIn.getByRole('button', { name: 'Sign in and accept' }).click()
	await expect(visitor.getByText('Invalid email or password.')).toBeVisible()
	await signIn.getByLabel('Password').fill(PASSWORD)
	await signIn.getByRole('button', { name: 'Sign in and accept' }).click()
	await visitor.waitForURL((url) => url.pathname === '/')
	// an admin may manage workspaces, but not the team
	await visitor.goto('/workspaces')
	await expect(visitor.getByRole('button', { name: 'Create workspace' })).toBeVisible()
	expect((await visitor.goto('/team-members'))?.status()).toBe(403)
	await visitor.context().close()
})

test('someone already signed in as the invited address just accepts @no-js', async ({
	page,
	browser,
}) => {
	await ownerWithPlan(page)
	const signedIn = await newVisitor(browser)
	const second = await signedUp(signedIn, { name: 'Sam Second' })
	await invite(page, second.email)
	await signedIn.goto(await latestMailLink(signedIn, second.email))
	await expect(signedIn.getByText(`You are signed in as ${second.email}.`)).toBeVisible()
	await signedIn.getByRole('button', { name: 'Accept invitation' }).click()
	await signedIn.waitForURL((url) => url.pathname === '/')
	await expect(signedIn.getByText('You joined Olivia Owner')).toBeVisible()
	await signedIn.context().close()
})

test('bad input on the invitation form @no-js', async ({ page }) => {
	const owner = await ownerWithPlan(page)
	await createWorkspace(page, 'Only')

	await invite(page, owner.email)
	await expect(page.getByText('That is your own email: invite someone else.')).toBeVisible()

	const email = uniqueEmail('twice')
	await invite(page, email)
	await expect(page.getByText(`Invitation sent to ${email}`)).toBeVisible()
	await invite(page, email.toUpperCase())
	await expect(page.getByText(`${email} already has a pending invitation.`)).toBeVisible()

	if (jsEnabled(test.info())) {
		// checked in the browser before it is sent
		await page.locator('form#invite').getByLabel('Invitee’s email').fill('not-an-email')
		await page.getByRole('button', { name: 'Send invitation' }).click()
		await expect(page.getByText('Enter a valid email address')).toBeVisible()
	}
	// and by the server, whatever the browser does
	const post = (form: string) =>
		page.request.post('/team-members', {
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			data: form,
			maxRedirects: 0,
		})
	const malformed = await post('intent=invite&email=not-an-email&role=editor&access=all')
	expect(malformed.status()).toBe(400)
	expect(await malformed.text()).toContain('Enter a valid email address')
	const role = await post('intent=invite&email=a%40example.com&role=owner&access=all')
	expect(role.status()).toBe(400)
	expect(await role.text()).toContain('Choose admin or editor')
	const scope = await post('intent=invite&email=a%40example.com&role=editor&access=all&scopes=all')
	expect(scope.status()).toBe(400)
	expect(await scope.text()).toContain('Choose permissions from the list')
	const none = await post('intent=invite&email=a%40example.com&role=editor&access=selected')
	expect(none.status()).toBe(400)
	expect(await none.text()).toContain('Choose at least one workspace')
	// a workspace of another account, in any form
	const foreign = await withDatabase(async (db) => {
		const stranger = await db.query(
			`insert into auth.users (id, aud, role, email, encrypted_password, created_at, updated_at)
			values (gen_random_uuid(), 'authenticated', 'authenticated', $1, '', now(), now()) returning id`,
			[uniqueEmail('stranger')],
		)
		const ws = await db.query(
			`insert into workspaces (user_id, name) values ($1, 'Theirs') returning id`,
			[stranger.rows[0].id],
		)
		return ws.rows[0].id as string
	})
	for (const form of [
		`intent=invite&email=b%40example.com&role=editor&access=selected&workspaceIds=${foreign}`,
		`intent=rename&workspaceId=${foreign}&name=Mine`,
		`intent=delete&workspaceId=${foreign}`,
	]) {
		const path = form.startsWith('intent=invite') ? '/team-members' : '/workspaces'
		const response = await page.request.post(path, {
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			data: form,
			maxRedirects: 0,
		})
		expect(response.status(), form).toBe(404)
	}
	const switched = await page.request.post('/workspaces/switch', {
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		data: `workspaceId=${foreign}&redirectTo=%2F`,
		maxRedirects: 0,
	})
	expect(switched.status()).toBe(404)
	// nothing was written
	const rows = await withDatabase((db) =>
		db.query(
			`select t.email from team_members t join auth.users u on u.id = t.user_id where u.email = $1`,
			[owner.email],
		),
	)
	expect(rows.rows.map((r) => r.email)).toEqual([email])
})

test('resend, revoke, edit and remove @no-js', async ({ page, browser }) => {
	await ownerWithPlan(page)
	await createWorkspace(page, 'North')
	await createWorkspace(page, 'South')
	const email = uniqueEmail('pending')
	await invite(page, email, { scopes: ['View domains, URL forwarding and inbox orders'] })
	const visitor = await newVisitor(browser)
	const first = await latestMailLink(visitor, email)

	const row = page.getByTestId('invitation').filter({ hasText: email })
	await expect(row).toContainText('Domain tools: view')
	await row.getByRole('button', { name: `Resend ${email}` }).click()
	await expect(page.getByText(`Invitation sent again to ${email}`)).toBeVisible()
	await expect.poll(() => latestMailLink(visitor, email)).not.toBe(first)
	const second = await latestMailLink(visitor, email)
	await visitor.goto(first)
	await expect(visitor.getByRole('heading', { name: 'Invitation not found' })).toBeVisible()

	await page
		.getByTestId('invitation')
		.filter({ hasText: email })
		.getByRole('button', { name: `Revoke ${email}` })
		.click()
	await expect(page.getByText(`Invitation to ${email} revoked`)).toBeVisible()
	await expect(page.getByText('No pending invitations')).toBeVisible()
	await visitor.goto(second)
	await expect(visitor.getByRole('heading', { name: 'This invitation was revoked' })).toBeVisible()

	// a member: edit its access, then remove it
	const memberEmail = uniqueEmail('member')
	await invite(page, memberEmail)
	await visitor.goto(await latestMailLink(visitor, memberEmail))
	const signUpForm = visitor.locator('form#accept-signup')
	await signUpForm.getByLabel('Your name').fill('Mia Member')
	await signUpForm.getByLabel('Choose a password').fill(PASSWORD)
	await signUpForm.getByRole('button', { name: 'Create account and accept' }).click()
	await visitor.waitForURL((url) => url.pathname === '/')
	await expect(visitor.getByLabel('Workspace', { exact: true }).locator('option')).toHaveText([
		'North',
		'South',
	])

	await page.goto('/team-members')
	const member = page.getByTestId('member').filter({ hasText: memberEmail })
	await member.locator('summary', { hasText: 'Edit access' }).click()
	await member.getByLabel('Only the workspaces chosen below').check()
	await member.getByLabel('South', { exact: true }).check()
	await member.getByRole('button', { name: 'Save access' }).click()
	await expect(page.getByText(`Access of ${memberEmail} updated`)).toBeVisible()
	await expect(page.getByTestId('member').filter({ hasText: memberEmail })).toContainText('South')

	// the member's next request sees the narrower access
	await visitor.goto('/workspaces')
	await expect(visitor.getByTestId('workspace')).toHaveText([/South/])

	await page.goto('/team-members')
	const again = page.getByTestId('member').filter({ hasText: memberEmail })
	await again.locator('summary', { hasText: 'Remove' }).click()
	await again.getByRole('button', { name: `Remove from team ${memberEmail}` }).click()
	await expect(page.getByText(`${memberEmail} removed from the team`)).toBeVisible()
	await expect(page.getByText('No team members yet')).toBeVisible()

	// back in its own account, which has no plan
	const response = await visitor.goto('/workspaces')
	expect(response?.status()).toBe(200)
	await expect(visitor.getByText('No workspaces yet')).toBeVisible()
	await visitor.context().close()
})

test('workspaces: create, rename, switch, refuse to delete one that holds a list, move it @no-js', async ({
	page,
}) => {
	const owner = await ownerWithPlan(page)
	await createWorkspace(page, 'Alpha')
	await createWorkspace(page, 'Beta')
	await page.goto('/workspaces')
	if (jsEnabled(test.info())) await expectNoSeriousA11yViolations(page)

	// duplicate names are refused next to the field
	await page.getByLabel('Name', { exact: true }).fill('alpha')
	await page.getByRole('button', { name: 'Create workspace' }).click()
	await expect(page.getByText('A workspace named “alpha” already exists.')).toBeVisible()

	// rename
	const beta = page.getByTestId('workspace').filter({ hasText: 'Beta' })
	await beta.locator('summary', { hasText: 'Rename' }).click()
	await beta.getByLabel('New name').fill('Gamma')
	await beta.getByRole('button', { name: 'Save name' }).click()
	await expect(page.getByText('Workspace renamed to “Gamma”')).toBeVisible()

	// the switcher remembers the choice across pages
	const switcher = page.getByTestId('workspace-switcher')
	await expect(switcher.getByLabel('Workspace')).toHaveValue(/.+/)
	await switcher.getByLabel('Workspace').selectOption({ label: 'Gamma' })
	if (!jsEnabled(test.info())) await switcher.getByRole('button', { name: 'Switch' }).click()
	await expect(page.getByText('Now working in “Gamma”')).toBeVisible()
	await page.goto('/settings')
	await expect(page.getByTestId('workspace-switcher').getByLabel('Workspace')).toHaveText(/Gamma/)
	await expect(page.getByTestId('workspace-switcher').locator('option:checked')).toHaveText('Gamma')
	await page.goto('/workspaces')
	await expect(page.getByTestId('workspace').filter({ hasText: 'Gamma' })).toContainText('Current')

	// a list in Alpha keeps it from deletion
	const listId = await withDatabase(async (db) => {
		const result = await db.query(
			`insert into processing_list (user_id, workspace_id, name, source_type)
			select w.user_id, w.id, 'Q3 prospects', 'upload' from workspaces w
			join auth.users u on u.id = w.user_id where u.email = $1 and w.name = 'Alpha'
			returning id`,
			[owner.email],
		)
		return result.rows[0].id as string
	})
	await page.reload()
	const alpha = page.getByTestId('workspace').filter({ hasText: 'Alpha' })
	await expect(alpha).toContainText('Holds 1 lead list')
	// a confirm dialog with JavaScript, a <details> without
	await pageSettled(page)
	await alpha.getByTestId('delete-workspace').getByText('Delete Alpha').click()
	await page.getByRole('button', { name: 'Delete “Alpha”' }).click()
	await expect(
		page.getByText('“Alpha” still holds 1 lead list. Move or delete them first.'),
	).toBeVisible()

	// the attach-workspace page moves it
	await page.goto(`/attach-workspace?type=list&id=${listId}&redirectTo=%2Fworkspaces`)
	await expect(page.getByTestId('current-workspace')).toHaveText('This lead list is in Alpha.')
	if (jsEnabled(test.info())) await expectNoSeriousA11yViolations(page)
	await page.getByLabel('Move it to').selectOption({ label: 'Gamma' })
	await page.getByRole('button', { name: 'Move' }).click()
	await page.waitForURL('**/workspaces')
	await expect(page.getByText('Moved “Q3 prospects” to “Gamma”')).toBeVisible()

	// now Alpha is empty and goes
	const emptied = page.getByTestId('workspace').filter({ hasText: 'Alpha' })
	await expect(emptied).toContainText('Empty')
	await emptied.getByTestId('delete-workspace').getByText('Delete Alpha').click()
	await page.getByRole('button', { name: 'Delete “Alpha”' }).click()
	await expect(page.getByText('Workspace “Alpha” deleted')).toBeVisible()
	await expect(page.getByTestId('workspace')).toHaveText([/Gamma/])
})

test('team pages at phone and desktop widths', async ({ page }) => {
	await ownerWithPlan(page)
	await createWorkspace(page, 'A workspace with a rather long name')
	await invite(page, uniqueEmail('layout'))
	for (const width of [390, 1280]) {
		await page.setViewportSize({ width, height: 900 })
		for (const path of ['/team-members', '/workspaces']) {
			await page.goto(path)
			const overflow = await page.evaluate(
				() => document.documentElement.scrollWidth - document.documentElement.clientWidth,
			)
			expect(overflow, `${path} at ${width}px`).toBeLessThanOrEqual(0)
			await page.screenshot({
				path: test.info().outputPath(`${path.slice(1)}-${width}.png`),
				fullPage: true,
			})
		}
	}
	if (jsEnabled(test.info())) await expectNoSeriousA11yViolations(page)
})
