// /settings' email change, posted as a browser would, against the embedded auth service (secure
// email change on): the field errors, the two mails, the state the page shows after each link.
import { randomUUID } from 'node:crypto'
import { RouterContextProvider } from 'react-router'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { loadAccountContext, requestContext } from '../context.server.ts'
import { getAuthAdmin, getAuthEndpoint } from '../services/auth/endpoint.server.ts'
import { FIRST_LINK_ACCEPTED, getEmailState } from '../services/auth/email-change.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import { getToast } from '../utils/toast.server.ts'
import * as confirm from './resources/auth-confirm.ts'
import * as settings from './settings.tsx'

const PASSWORD = 'correct horse 42'
/** What the app says after the first of the two links or codes (not GoTrue's sentence). */
const FIRST_OF_TWO =
	'That worked. To finish changing your email address, also confirm from the other address: open the link or enter the code we sent there.'
const newEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`

async function client(): Promise<SupabaseClient> {
	const endpoint = await getAuthEndpoint()
	return createClient(endpoint.url, endpoint.anonKey, {
		auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
		global: { fetch: endpoint.fetch },
	})
}

async function signedIn() {
	const email = newEmail('settings')
	const admin = await getAuthAdmin()
	const { data } = await admin.createUser({ email, password: PASSWORD, email_confirm: true })
	const supabase = await client()
	expect((await supabase.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull()
	const account = await loadAccountContext(db, { id: data.user!.id, email })
	return { email, id: data.user!.id, supabase, account }
}

function context(supabase: SupabaseClient, account: unknown) {
	const provider = new RouterContextProvider()
	provider.set(requestContext, {
		account,
		responseHeaders: new Headers(),
		supabase,
		currentWorkspaceId: null,
	} as never)
	return provider
}

/** What the browser gets: status, where it goes, the toast or the form's field errors. */
async function answer(promise: Promise<unknown>) {
	let result: unknown
	try {
		result = await promise
	} catch (error) {
		result = error
	}
	const response = result instanceof Response ? result : null
	const cookie = response?.headers.get('set-cookie')?.split(';')[0]
	const toast = cookie
		? (await getToast(new Request('http://localhost/', { headers: { Cookie: cookie } }))).toast
		: undefined
	const body = (result as { data?: { result?: { error?: Record<string, string[]> } } })?.data
	return {
		status: statusOf(result) ?? 200,
		location: response?.headers.get('location') ?? null,
		toast: toast?.message ?? null,
		errors: body?.result?.error ?? null,
	}
}

async function post(user: Awaited<ReturnType<typeof signedIn>>, email: string) {
	const request = new Request('http://localhost/settings', {
		method: 'POST',
		body: new URLSearchParams({ intent: 'email', email }),
	})
	const args = { request, context: context(user.supabase, user.account), params: {} }
	return answer(settings.action(args as never))
}

/** Opens a mailed link (it goes straight to /auth/confirm) in a browser with no session. */
async function open(link: string) {
	const url = new URL(link)
	expect(url.pathname).toBe('/auth/confirm')
	const request = new Request(`http://localhost${url.pathname}${url.search}`)
	const args = { request, context: context(await client(), null), params: {} }
	return answer(confirm.loader(args as never))
}

async function mailTo(address: string) {
	const row = await db
		.selectFrom('mailbox')
		.select('text_body')
		.where('to_address', '=', address)
		.orderBy('id', 'desc')
		.executeTakeFirstOrThrow()
	return /https?:\/\/\S+/.exec(row.text_body)![0]
}

async function codeTo(address: string) {
	const row = await db
		.selectFrom('mailbox')
		.select('text_body')
		.where('to_address', '=', address)
		.orderBy('id', 'desc')
		.executeTakeFirstOrThrow()
	return /code: (\d{6})/.exec(row.text_body)![1]!
}

async function postCode(user: Awaited<ReturnType<typeof signedIn>>, code: string) {
	const request = new Request('http://localhost/settings', {
		method: 'POST',
		body: new URLSearchParams({ intent: 'email-code', code }),
	})
	const args = { request, context: context(user.supabase, user.account), params: {} }
	return answer(settings.action(args as never))
}

describe('changing the email address on /settings', () => {
	test('a bad, unchanged or taken address is refused at the field and nothing is asked', async () => {
		const user = await signedIn()
		const other = await signedIn()
		const cases = [
			['not-an-address', 'Enter a valid email address'],
			[user.email, 'This is already your email address.'],
			[other.email, 'Another account uses this email address.'],
		] as const
		for (const [email, message] of cases)
			expect(await post(user, email)).toMatchObject({
				status: 400,
				errors: { email: [message] },
			})
		expect(await getEmailState(user.id)).toEqual({ email: user.email, pending: null })
	})

	test('both addresses get a link; the page shows which is still to be used, then the new address', async () => {
		const user = await signedIn()
		const target = newEmail('moved')
		expect(await post(user, target)).toEqual({
			status: 302,
			location: '/settings',
			toast: `Check both inboxes: open the links we sent to ${user.email} and ${target}.`,
			errors: null,
		})
		expect((await getEmailState(user.id)).pending).toEqual({
			newEmail: target,
			waitingForCurrent: true,
			waitingForNew: true,
			bothAddresses: true,
		})
		const toCurrent = await mailTo(user.email)
		const toNew = await mailTo(target)
		// no PKCE: the links work in any browser
		expect(new URL(toCurrent).searchParams.get('type')).toBe('email_change')
		expect(new URL(toCurrent).searchParams.get('next')).toBe('/settings')

		expect(await open(toNew)).toMatchObject({
			status: 302,
			location: '/settings',
			toast: FIRST_OF_TWO,
		})
		expect(await getEmailState(user.id)).toEqual({
			email: user.email,
			pending: {
				newEmail: target,
				waitingForCurrent: true,
				waitingForNew: false,
				bothAddresses: true,
			},
		})
		// used once
		expect(await open(toNew)).toMatchObject({ location: '/signin' })

		expect(await open(toCurrent)).toMatchObject({
			status: 302,
			location: '/settings',
			toast: 'Email address changed.',
		})
		expect(await getEmailState(user.id)).toEqual({ email: target, pending: null })
	})

	test("a PKCE redirect's message is shown only when it is the auth service's own", async () => {
		const landing = async (message: string) => {
			const request = new Request(
				`http://localhost/auth/confirm?next=/settings&message=${encodeURIComponent(message)}`,
			)
			const args = { request, context: context(await client(), null), params: {} }
			return answer(confirm.loader(args as never))
		}
		expect(await landing(FIRST_LINK_ACCEPTED)).toMatchObject({
			location: '/settings',
			toast: FIRST_OF_TWO,
		})
		expect(await landing('Your account is locked: call +1 555 0100')).toMatchObject({
			location: '/signin',
			toast: 'This link is invalid or has expired. Ask for a new one.',
		})
	})

	test('the codes in the two mails, entered on /settings, change the address as the links do', async () => {
		const user = await signedIn()
		const target = newEmail('by-code')
		await post(user, target)
		const toCurrent = await codeTo(user.email)
		const toNew = await codeTo(target)
		const wrong = toNew === '000000' ? '111111' : '000000'
		expect(await postCode(user, wrong)).toMatchObject({
			status: 400,
			errors: { code: ['This code is not right or has expired. Use the latest email.'] },
		})
		expect(await postCode(user, 'abc')).toMatchObject({
			status: 400,
			errors: { code: ['Enter the 6-digit code from the email'] },
		})
		expect(await postCode(user, toNew)).toMatchObject({
			status: 302,
			location: '/settings',
			toast: FIRST_OF_TWO,
		})
		expect((await getEmailState(user.id)).pending).toMatchObject({
			waitingForCurrent: true,
			waitingForNew: false,
		})
		// a code counts once
		expect(await postCode(user, toNew)).toMatchObject({ status: 400 })
		expect(await postCode(user, toCurrent)).toMatchObject({
			status: 302,
			location: '/settings',
			toast: 'Email address changed.',
		})
		expect(await getEmailState(user.id)).toEqual({ email: target, pending: null })
	})
})
