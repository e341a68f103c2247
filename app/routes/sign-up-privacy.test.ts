// The sign-up and forgot-password pages answer a registered address exactly as an unknown one
// (email confirmation on), posted as a browser would, against the embedded auth service.
import { randomUUID } from 'node:crypto'
import { RouterContextProvider } from 'react-router'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { startTestAuthServer, type TestAuthServer } from '../auth-service/testing.server.ts'
import { requestContext } from '../context.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import { getToast } from '../utils/toast.server.ts'
import { resetSingleton } from '../utils/singleton.server.ts'
import * as forgotPassword from './forgot-password.tsx'
import * as signup from './signup.tsx'

const PASSWORD = 'correct horse 42'
let server: TestAuthServer

beforeAll(async () => {
	server = await startTestAuthServer({ AUTH_AUTOCONFIRM: 'false', AUTH_RATE_LIMIT_IP: '100000' })
})
afterAll(async () => {
	await server?.close()
})

const newEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`

function args(path: string, form: Record<string, string>) {
	const context = new RouterContextProvider()
	context.set(requestContext, {
		account: null,
		responseHeaders: new Headers(),
		supabase: server.client(),
		currentWorkspaceId: null,
	})
	const request = new Request(`http://localhost${path}`, {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	return { request, context, params: {} } as never
}

/** What the browser gets: status, where it goes, and the page's message (toast or form). */
async function answer(promise: Promise<unknown>) {
	let result: unknown
	try {
		result = await promise
	} catch (error) {
		result = error
	}
	const response = result instanceof Response ? result : null
	const body = (result as { data?: unknown })?.data
	const cookie = response?.headers.get('set-cookie')?.split(';')[0]
	const toast = cookie
		? (await getToast(new Request('http://localhost/', { headers: { Cookie: cookie } }))).toast
		: undefined
	return {
		status: statusOf(result) ?? 200,
		location: response?.headers.get('location') ?? null,
		body: body === undefined ? null : JSON.stringify(body),
		toast: toast?.message ?? null,
	}
}

async function registered() {
	const email = newEmail('owner')
	const { data } = await server
		.admin()
		.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
	await db
		.insertInto('profiles')
		.values({ user_id: data.user!.id, full_name: 'The Owner' })
		.execute()
	return { email, id: data.user!.id }
}

describe('sign-up never tells whether an address is registered', () => {
	test('the same answer for a registered and a new address; the owner keeps the profile', async () => {
		const owner = await registered()
		// the form echoes the typed address back: the same text but for it
		const signUp = async (email: string) => {
			const { body, ...rest } = await answer(
				signup.action(args('/signup', { fullName: 'Mallory', email, password: PASSWORD })),
			)
			return { ...rest, body: body?.replaceAll(email, '<email>') ?? null }
		}
		const forRegistered = await signUp(owner.email)
		const forNew = await signUp(newEmail('new'))
		expect(forRegistered).toEqual(forNew)
		expect(forRegistered).toMatchObject({ status: 302, location: '/signin' })
		// nothing of the owner's changed, and no row for the look-alike user
		const profile = await db
			.selectFrom('profiles')
			.select('full_name')
			.where('user_id', '=', owner.id)
			.executeTakeFirstOrThrow()
		expect(profile.full_name).toBe('The Owner')
		// at once again (a mail went out a moment ago): the same answer for both
		const fresh = newEmail('new')
		await signUp(fresh)
		const again = await signUp(owner.email)
		expect(again).toEqual(await signUp(fresh))
		expect(again.status).toBe(429)
	})
})

describe('forgot-password never tells whether an address is registered', () => {
	test('twice in a row: the same answers for a registered and an unknown address', async () => {
		const owner = await registered()
		const unknown = newEmail('nobody')
		// the answer names the address typed (the code page is filled in with it), nothing more
		const ask = async (email: string) => {
			const reply = await answer(forgotPassword.action(args('/forgot-password', { email })))
			return { ...reply, location: reply.location?.replace(encodeURIComponent(email), '<email>') }
		}
		const registeredAnswers = [await ask(owner.email), await ask(owner.email)]
		const unknownAnswers = [await ask(unknown), await ask(unknown)]
		expect(registeredAnswers).toEqual(unknownAnswers)
		expect(registeredAnswers[1]).toMatchObject({
			status: 302,
			location: '/reset-password?email=<email>',
		})
		expect(await server.mailCount(owner.email)).toBe(1)
		expect(await server.mailCount(unknown)).toBe(0)
		// the truth each time: the first says a mail went out if there is an account, the second
		// (nothing sent) says that nothing new was sent
		expect(registeredAnswers.map((a) => a.toast)).toEqual([
			'If an account exists for that email, we sent a link to reset your password, and a 6-digit code you can enter here.',
			'No new email was sent: if an account exists for that email, we sent it a reset link and code less than a minute ago. Use them, or ask again in a minute.',
		])
	})
})

describe('on a public APP_URL with sign-ups confirmed at once', () => {
	let autoconfirmed: TestAuthServer
	beforeAll(async () => {
		autoconfirmed = await startTestAuthServer({
			AUTH_AUTOCONFIRM: 'true',
			AUTH_RATE_LIMIT_IP: '100000',
		})
		process.env.APP_URL = 'https://leadsmith.example.com'
		resetSingleton('config')
	})
	afterAll(async () => {
		delete process.env.APP_URL
		resetSingleton('config')
		await autoconfirmed?.close()
	})

	test('sign-up answers a registered address as a new one, and mails the owner', async () => {
		const email = newEmail('owner')
		await autoconfirmed
			.admin()
			.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
		const signUp = async (address: string) => {
			const context = new RouterContextProvider()
			const supabase = autoconfirmed.client()
			context.set(requestContext, {
				account: null,
				responseHeaders: new Headers(),
				supabase,
				currentWorkspaceId: null,
			})
			const request = new Request('https://leadsmith.example.com/signup', {
				method: 'POST',
				body: new URLSearchParams({ fullName: 'Mallory', email: address, password: PASSWORD }),
			})
			const reply = await answer(signup.action({ request, context, params: {} } as never))
			// nobody is left signed in by the answer
			expect((await supabase.auth.getSession()).data.session).toBeNull()
			return reply
		}
		const fresh = newEmail('new')
		const forNew = await signUp(fresh)
		const forRegistered = await signUp(email)
		expect(forRegistered).toEqual(forNew)
		expect(forRegistered).toMatchObject({
			status: 302,
			location: '/signin',
			toast:
				'Sign in with your email and password to continue. If the address already had an account, we emailed it.',
		})
		expect(await autoconfirmed.mailCount(email)).toBe(1)
		expect(await autoconfirmed.mailCount(fresh)).toBe(0)
		// the new account is real: its password signs in
		const signedIn = await autoconfirmed
			.client()
			.auth.signInWithPassword({ email: fresh, password: PASSWORD })
		expect(signedIn.error).toBeNull()
		// again at once (one notice a minute): still the same answer
		expect(await signUp(email)).toEqual(forNew)
	})
})
