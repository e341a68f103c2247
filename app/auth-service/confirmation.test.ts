// Sign-up with email confirmation (AUTH_AUTOCONFIRM=false), through supabase-js.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openLink, startTestAuthServer, type TestAuthServer } from './testing.server.ts'

const PASSWORD = 'correct horse 42'
let server: TestAuthServer

beforeAll(async () => {
	server = await startTestAuthServer({ AUTH_AUTOCONFIRM: 'false', AUTH_RATE_LIMIT_IP: '100000' })
})
afterAll(async () => {
	await server?.close()
})

const newEmail = () => `confirm-${randomUUID().slice(0, 8)}@example.com`

test('sign-up answers with the user and no session, and mails a confirmation link', async () => {
	const settings = await (await fetch(`${server.url}/auth/v1/settings`)).json()
	expect(settings.mailer_autoconfirm).toBe(false)

	const email = newEmail()
	const { data, error } = await server.client().auth.signUp({
		email,
		password: PASSWORD,
		options: { emailRedirectTo: `${server.url}/welcome`, data: { full_name: 'Alan' } },
	})
	expect(error).toBeNull()
	expect(data.session).toBeNull()
	expect(data.user).toMatchObject({
		email,
		email_confirmed_at: null,
		confirmation_sent_at: expect.any(String),
	})

	const signIn = await server.client().auth.signInWithPassword({ email, password: PASSWORD })
	expect(signIn.error).toMatchObject({
		status: 400,
		code: 'email_not_confirmed',
		message: 'Email not confirmed',
	})

	const mail = await server.lastMail(email)
	expect(mail.subject).toBe('Confirm your Leadsmith account')
	expect(mail.text_body).toContain('Welcome to Leadsmith!')
	expect(mail.html_body).toContain('<a href=')
	const opened = await openLink(mail.link!)
	expect(opened.url.pathname).toBe('/welcome')
	expect(opened.fragment.get('type')).toBe('signup')
	const { data: confirmed } = await server
		.client()
		.auth.getUser(opened.fragment.get('access_token')!)
	expect(confirmed.user).toMatchObject({
		email,
		user_metadata: { full_name: 'Alan', email_verified: true },
	})
	expect(confirmed.user!.email_confirmed_at).toEqual(expect.any(String))
	expect(
		(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
	).toBeNull()
})

test('signing up again with a confirmed address answers like a new address and mails the owner', async () => {
	const email = newEmail()
	await server.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	const fresh = newEmail()
	const answers = []
	for (const address of [email, fresh]) {
		const { data, error } = await server
			.client()
			.auth.signUp({ email: address, password: 'other pass 123' })
		expect(error).toBeNull()
		expect(data.session).toBeNull()
		expect(data.user).toMatchObject({ email: address, email_confirmed_at: null })
		answers.push(data.user!)
	}
	const [registered, unregistered] = answers
	// a look-alike: not the owner's id, the same fields as a real new user
	const owner = (await server.admin().auth.admin.listUsers({ perPage: 1000 })).data.users.find(
		(u) => u.email === email,
	)!
	expect(registered!.id).not.toBe(owner.id)
	expect(Object.keys(registered!).sort()).toEqual(Object.keys(unregistered!).sort())
	// the owner hears of it (no confirmation link to take over the account), the new one confirms
	const notice = await server.lastMail(email)
	expect(notice.subject).toBe('Someone tried to sign up to Leadsmith with your address')
	expect(notice.text_body).not.toContain('/auth/v1/verify')
	expect((await server.lastMail(fresh)).subject).toBe('Confirm your Leadsmith account')
	// trying again at once: the same 429 for both
	for (const address of [email, fresh]) {
		const again = await server.client().auth.signUp({ email: address, password: 'other pass 123' })
		expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' })
	}
	expect(await server.mailCount(email)).toBe(1)
	// and the owner's password still works
	expect(
		(await server.client().auth.signInWithPassword({ email, password: PASSWORD })).error,
	).toBeNull()
})

test('resend: a new confirmation link, once a minute', async () => {
	const email = newEmail()
	await server.client().auth.signUp({ email, password: PASSWORD })
	const first = await server.lastMail(email)
	const tooSoon = await server.client().auth.resend({ type: 'signup', email })
	expect(tooSoon.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' })
	server.clock.advance(61)
	expect((await server.client().auth.resend({ type: 'signup', email })).error).toBeNull()
	const second = await server.lastMail(email)
	expect(second.id).not.toBe(first.id)
	// the old link no longer works, the new one does; the code works with verifyOtp
	expect((await openLink(first.link!)).fragment.get('error_code')).toBe('otp_expired')
	const verified = await server
		.client()
		.auth.verifyOtp({ email, token: second.code!, type: 'signup' })
	expect(verified.error).toBeNull()
	expect(verified.data.session!.user.email_confirmed_at).toEqual(expect.any(String))
	// unknown addresses and confirmed users: 200 and no mail
	expect(
		(await server.client().auth.resend({ type: 'signup', email: newEmail() })).error,
	).toBeNull()
	server.clock.advance(61)
	expect((await server.client().auth.resend({ type: 'signup', email })).error).toBeNull()
	expect(await server.mailCount(email)).toBe(2)
})

test('PKCE sign-up: the confirmation link gives a code for the same browser', async () => {
	const email = newEmail()
	const client = server.pkceClient()
	const { data } = await client.auth.signUp({
		email,
		password: PASSWORD,
		options: { emailRedirectTo: `${server.url}/auth/confirm` },
	})
	expect(data.session).toBeNull()
	const opened = await openLink((await server.lastMail(email)).link!)
	const code = opened.query.get('code')!
	const exchanged = await client.auth.exchangeCodeForSession(code)
	expect(exchanged.error).toBeNull()
	expect(exchanged.data.session!.user).toMatchObject({ email })
	const amr = JSON.parse(
		Buffer.from(exchanged.data.session!.access_token.split('.')[1]!, 'base64url').toString(),
	).amr
	expect(amr[0].method).toBe('email/signup')
})

test('magic link for a new address without autoconfirm: the confirmation mail signs in', async () => {
	const email = newEmail()
	expect((await server.client().auth.signInWithOtp({ email })).error).toBeNull()
	const mail = await server.lastMail(email)
	expect(mail.subject).toBe('Confirm your Leadsmith account')
	const opened = await openLink(mail.link!)
	expect(opened.fragment.get('access_token')).toBeTruthy()
})
