// Secure email change (GoTrue's secure_email_change_enabled, our AUTH_SECURE_EMAIL_CHANGE),
// driven through the official supabase-js client and the mailed links as a browser opens them.
import { createHash, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import {
	memoryStorage,
	openLink,
	startTestAuthServer,
	type TestAuthServer,
} from './testing.server.ts'

const PASSWORD = 'correct horse 42'
const ACCEPTED =
	'Confirmation link accepted. Please proceed to confirm link sent to the other email'

let server: TestAuthServer
/** the same service with AUTH_SECURE_EMAIL_CHANGE=false */
let single: TestAuthServer

beforeAll(async () => {
	const env = { AUTH_RATE_LIMIT_IP: '100000', AUTH_RATE_LIMIT_EMAIL: '1000' }
	;[server, single] = await Promise.all([
		startTestAuthServer(env),
		startTestAuthServer({ ...env, AUTH_SECURE_EMAIL_CHANGE: 'false' }),
	])
})
afterAll(async () => {
	await Promise.all([server?.close(), single?.close()])
})

const newEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`

/** A signed-in user of `on` who asked to move to a new address. */
async function changing(on: TestAuthServer, client: SupabaseClient = on.client()) {
	const email = newEmail('current')
	const target = newEmail('moved')
	expect((await on.client().auth.signUp({ email, password: PASSWORD })).error).toBeNull()
	expect((await client.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull()
	const { data, error } = await client.auth.updateUser(
		{ email: target },
		{ emailRedirectTo: `${on.url}/settings` },
	)
	expect(error).toBeNull()
	expect(data.user).toMatchObject({ email, new_email: target })
	return { email, target, client, userId: data.user!.id }
}

async function row(on: TestAuthServer, id: string) {
	return on.db
		.selectFrom('auth.users')
		.select([
			'email',
			'email_change',
			'email_change_confirm_status',
			'email_change_token_current',
			'email_change_token_new',
		])
		.where('id', '=', id)
		.executeTakeFirstOrThrow()
}

async function canSignIn(on: TestAuthServer, email: string) {
	return !(await on.client().auth.signInWithPassword({ email, password: PASSWORD })).error
}

describe('with AUTH_SECURE_EMAIL_CHANGE (the default)', () => {
	test('both addresses get a link; the first changes nothing, the second switches the address', async () => {
		expect(server.config.AUTH_SECURE_EMAIL_CHANGE).toBe(true)
		const { email, target, userId } = await changing(server)
		const toCurrent = await server.lastMail(email)
		const toNew = await server.lastMail(target)
		expect(toCurrent.subject).toBe('Confirm the change of your Leadsmith email address')
		expect(toCurrent.text_body).toContain(`from ${email} to ${target}`)
		expect(toNew.subject).toBe('Confirm your new email address for Leadsmith')
		expect(toNew.text_body).toContain(`We also sent a link to ${email}`)
		expect(toCurrent.link).not.toBe(toNew.link)
		expect(new URL(toCurrent.link!).searchParams.get('type')).toBe('email_change')

		// the current address's link first: GoTrue's message, no session, nothing switched
		const first = await openLink(toCurrent.link!)
		expect(first.url.origin + first.url.pathname).toBe(`${server.url}/settings`)
		expect(first.fragment.get('message')).toBe(ACCEPTED)
		expect(first.fragment.has('sb')).toBe(true)
		expect(first.fragment.get('access_token')).toBeNull()
		expect(first.query.get('message')).toBeNull() // in the query only for PKCE links
		expect(await row(server, userId)).toMatchObject({
			email,
			email_change: target,
			email_change_confirm_status: 1,
			email_change_token_current: '',
		})
		expect(await canSignIn(server, email)).toBe(true)
		expect(await canSignIn(server, target)).toBe(false)
		// used once
		const reused = await openLink(toCurrent.link!)
		expect(reused.fragment.get('error_code')).toBe('otp_expired')
		expect(reused.fragment.get('error_description')).toBe('Email link is invalid or has expired')

		// then the new address's link: signed in with the new address
		const second = await openLink(toNew.link!)
		expect(second.fragment.get('type')).toBe('email_change')
		const { data } = await server.client().auth.getUser(second.fragment.get('access_token')!)
		expect(data.user).toMatchObject({ id: userId, email: target })
		expect(data.user!.new_email).toBeUndefined()
		expect(await row(server, userId)).toMatchObject({
			email: target,
			email_change: '',
			email_change_confirm_status: 0,
			email_change_token_current: '',
			email_change_token_new: '',
		})
		expect(await canSignIn(server, target)).toBe(true)
		expect(await canSignIn(server, email)).toBe(false)

		// the old address hears of it (GoTrue's "email changed" notification)
		const notice = await server.lastMail(email)
		expect(notice.subject).toBe('Your Leadsmith email address was changed')
		expect(notice.text_body).toContain(`changed from ${email} to ${target}`)
		expect(notice.link).toBeUndefined()
		expect((await openLink(toNew.link!)).fragment.get('error_code')).toBe('otp_expired')
	})

	test('the new address first, by the codes (POST /verify), then the current one', async () => {
		const { email, target, userId } = await changing(server)
		const codeCurrent = (await server.lastMail(email)).code!
		const codeNew = (await server.lastMail(target)).code!

		// a code checked against the wrong address is refused
		const crossed = await server
			.client()
			.auth.verifyOtp({ email, token: codeNew, type: 'email_change' })
		expect(crossed.error).toMatchObject({ status: 403, code: 'otp_expired' })

		const first = await server
			.client()
			.auth.verifyOtp({ email: target, token: codeNew, type: 'email_change' })
		expect(first.error).toBeNull()
		expect(first.data).toEqual({ user: null, session: null })
		expect((await row(server, userId)).email).toBe(email)
		const again = await server
			.client()
			.auth.verifyOtp({ email: target, token: codeNew, type: 'email_change' })
		expect(again.error).toMatchObject({ status: 403, code: 'otp_expired' })

		const second = await server
			.client()
			.auth.verifyOtp({ email, token: codeCurrent, type: 'email_change' })
		expect(second.error).toBeNull()
		expect(second.data.session!.user).toMatchObject({ id: userId, email: target })
		expect((await server.lastMail(email)).subject).toBe('Your Leadsmith email address was changed')
	})

	test("GoTrue's answer to the first token hash is {msg, code}; another user's token does nothing", async () => {
		const a = await changing(server)
		const b = await changing(server)
		const hashOf = (link: string) => new URL(link).searchParams.get('token')!
		const aNew = hashOf((await server.lastMail(a.target)).link!)
		const bCurrentCode = (await server.lastMail(b.email)).code!

		// b's code given with a's address matches nothing: neither user changes
		const foreign = await server
			.client()
			.auth.verifyOtp({ email: a.email, token: bCurrentCode, type: 'email_change' })
		expect(foreign.error).toMatchObject({ status: 403, code: 'otp_expired' })
		for (const user of [a, b])
			expect(await row(server, user.userId)).toMatchObject({
				email: user.email,
				email_change_confirm_status: 0,
			})

		const response = await fetch(`${server.url}/auth/v1/verify`, {
			method: 'POST',
			headers: { apikey: server.service.anonKey, 'Content-Type': 'application/json' },
			body: JSON.stringify({ type: 'email_change', token_hash: aNew }),
		})
		expect(response.status).toBe(200)
		expect(await response.json()).toEqual({ msg: ACCEPTED, code: '200' })
		// a's first link left b's change alone
		expect(await row(server, b.userId)).toMatchObject({ email_change_confirm_status: 0 })
		expect((await row(server, b.userId)).email_change_token_current).not.toBe('')
	})

	test('PKCE: the first link answers ?message= too, the second a code for the session', async () => {
		const client = server.pkceClient(memoryStorage())
		const { email, target } = await changing(server, client)
		const toCurrent = (await server.lastMail(email)).link!
		expect(new URL(toCurrent).searchParams.get('token')).toMatch(/^pkce_/)

		const first = await openLink((await server.lastMail(target)).link!)
		expect(first.query.get('message')).toBe(ACCEPTED)
		expect(first.fragment.get('message')).toBe(ACCEPTED)
		expect(first.query.get('code')).toBeNull()

		const second = await openLink(toCurrent)
		const code = second.query.get('code')!
		expect(code).toBeTruthy()
		const { data, error } = await client.auth.exchangeCodeForSession(code)
		expect(error).toBeNull()
		expect(data.user!.email).toBe(target)
	})

	test('resend mails both links again; the earlier ones no longer count', async () => {
		const { email, target, userId } = await changing(server)
		const oldLink = (await server.lastMail(email)).link!
		server.clock.advance(61) // one mail of a kind a minute
		const { error } = await server.client().auth.resend({ type: 'email_change', email })
		expect(error).toBeNull()
		expect((await openLink(oldLink)).fragment.get('error_code')).toBe('otp_expired')
		expect((await openLink((await server.lastMail(email)).link!)).fragment.get('message')).toBe(
			ACCEPTED,
		)
		await openLink((await server.lastMail(target)).link!)
		expect((await row(server, userId)).email).toBe(target)
	})

	test('generateLink: email_change_current and email_change_new, each with its own token', async () => {
		const admin = server.admin()
		const email = newEmail('generated')
		const target = newEmail('generated-new')
		const created = await admin.auth.admin.createUser({
			email,
			password: PASSWORD,
			email_confirm: true,
		})
		expect(created.error).toBeNull()
		const current = await admin.auth.admin.generateLink({
			type: 'email_change_current',
			email,
			newEmail: target,
		})
		expect(current.error).toBeNull()
		const currentProps = current.data.properties!
		expect(currentProps.verification_type).toBe('email_change_current')
		expect(currentProps.hashed_token).toBe(
			createHash('sha224')
				.update(email + currentProps.email_otp)
				.digest('hex'),
		)
		expect(new URL(currentProps.action_link).searchParams.get('type')).toBe('email_change')
		expect(current.data.user).toMatchObject({ email, new_email: target })
		const fresh = await admin.auth.admin.generateLink({
			type: 'email_change_new',
			email,
			newEmail: target,
		})
		const newProps = fresh.data.properties!
		expect(newProps.verification_type).toBe('email_change_new')
		expect(newProps.hashed_token).toBe(
			createHash('sha224')
				.update(target + newProps.email_otp)
				.digest('hex'),
		)
		expect(await server.mailCount(email)).toBe(0)
		expect(await server.mailCount(target)).toBe(0)

		const first = await server
			.client()
			.auth.verifyOtp({ token_hash: newProps.hashed_token, type: 'email_change' })
		expect(first).toMatchObject({ data: { user: null, session: null }, error: null })
		const second = await openLink(currentProps.action_link)
		const { data } = await server.client().auth.getUser(second.fragment.get('access_token')!)
		expect(data.user!.email).toBe(target)
	})
})

describe('with AUTH_SECURE_EMAIL_CHANGE=false', () => {
	test("only the new address gets a link, and it switches alone; no current address's link to generate", async () => {
		const { email, target, userId } = await changing(single)
		expect(await single.mailCount(email)).toBe(0)
		const toNew = await single.lastMail(target)
		expect(toNew.text_body).not.toContain('We also sent a link')
		const opened = await openLink(toNew.link!)
		expect(opened.fragment.get('access_token')).toBeTruthy()
		expect((await row(single, userId)).email).toBe(target)
		expect((await single.lastMail(email)).subject).toBe('Your Leadsmith email address was changed')

		const refused = await single.admin().auth.admin.generateLink({
			type: 'email_change_current',
			email: target,
			newEmail: newEmail('elsewhere'),
		})
		expect(refused.error).toMatchObject({
			status: 400,
			code: 'validation_failed',
			message: 'Enable secure email change to generate link for current email',
		})
	})
})
