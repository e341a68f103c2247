// Issue 32 point 5, posted as a browser would against the embedded auth service: recovery codes
// (shown once, kept hashed, each good once, renewable, usable at the sign-in code step), and a
// password-only session of a user with two-factor changes neither password nor email.
import { randomUUID } from 'node:crypto'
import { RouterContextProvider } from 'react-router'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { describe, expect, test } from 'vitest'
import { db } from '../../db/index.server.ts'
import { totpCode, totpStep } from '../auth-service/totp.server.ts'
import { loadAccountContext, requestContext } from '../context.server.ts'
import { getAuthAdmin, getAuthEndpoint } from '../services/auth/endpoint.server.ts'
import { getEmailState } from '../services/auth/email-change.server.ts'
import { spendRecoveryCode } from '../services/auth/recovery-codes.server.ts'
import { statusOf } from '../utils/http-errors.server.ts'
import { getToast } from '../utils/toast.server.ts'
import * as settings from './settings.tsx'
import * as verify from './signin-verify.tsx'

const PASSWORD = 'correct horse 42'

async function client(): Promise<SupabaseClient> {
	const endpoint = await getAuthEndpoint()
	return createClient(endpoint.url, endpoint.anonKey, {
		auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
		global: { fetch: endpoint.fetch },
	})
}

async function signIn(email: string) {
	const supabase = await client()
	const { data, error } = await supabase.auth.signInWithPassword({ email, password: PASSWORD })
	expect(error).toBeNull()
	return { supabase, id: data.user!.id }
}

async function newUser() {
	const email = `two-factor-${randomUUID().slice(0, 8)}@example.com`
	const admin = await getAuthAdmin()
	await admin.createUser({ email, password: PASSWORD, email_confirm: true })
	return { email, ...(await signIn(email)) }
}

function context(supabase: SupabaseClient, account: unknown, pending = false) {
	const provider = new RouterContextProvider()
	provider.set(requestContext, {
		account,
		responseHeaders: new Headers(),
		supabase,
		currentWorkspaceId: null,
		secondFactorPending: pending,
	} as never)
	return provider
}

type Answer = {
	status: number
	location: string | null
	toast: string | null
	cookies: string[]
	errors: Record<string, string[]> | null
	data: Record<string, unknown> | null
}

async function answer(promise: Promise<unknown>): Promise<Answer> {
	let result: unknown
	try {
		result = await promise
	} catch (error) {
		result = error
	}
	const response = result instanceof Response ? result : null
	const cookies = response?.headers.getSetCookie().map((c) => c.split(';')[0]!) ?? []
	const toastCookie = cookies.find((c) => c.startsWith('ls_toast='))
	const toast = toastCookie
		? (await getToast(new Request('http://localhost/', { headers: { Cookie: toastCookie } }))).toast
		: undefined
	const body = (result as { data?: Record<string, unknown> })?.data ?? null
	return {
		status: statusOf(result) ?? 200,
		location: response?.headers.get('location') ?? null,
		toast: toast?.message ?? null,
		cookies,
		errors: (body?.result as { error?: Record<string, string[]> } | undefined)?.error ?? null,
		data: body,
	}
}

function post(
	route: { action: (args: never) => Promise<unknown> },
	path: string,
	form: Record<string, string>,
	ctx: RouterContextProvider,
) {
	const request = new Request(`http://localhost${path}`, {
		method: 'POST',
		body: new URLSearchParams(form),
	})
	return answer(route.action({ request, context: ctx, params: {} } as never))
}

async function settingsPage(
	user: { supabase: SupabaseClient; id: string; email: string },
	cookie = '',
) {
	const account = await loadAccountContext(db, { id: user.id, email: user.email })
	const request = new Request('http://localhost/settings', { headers: { Cookie: cookie } })
	const result = (await settings.loader({
		request,
		context: context(user.supabase, { ...account, sessionAal: 'aal2' }),
		params: {},
	} as never)) as unknown as {
		data: { twoFactor: { recoveryCodes: string[] | null; recoveryCodesLeft: number } }
		init: { headers: Headers }
	}
	return { twoFactor: result.data.twoFactor, headers: result.init.headers }
}

const code = (secret: string, offset = 0) => totpCode(secret, totpStep(new Date()) + offset)

/** Two-factor turned on in /settings; the codes the page showed once, and the key. */
async function turnedOn() {
	const user = await newUser()
	const account = () => loadAccountContext(db, { id: user.id, email: user.email })
	const start = await post(
		settings,
		'/settings',
		{ intent: 'two-factor-enroll' },
		context(user.supabase, await account()),
	)
	const enrollment = start.data!.enrollment as { factorId: string; uri: string; secret: string }
	const on = await post(
		settings,
		'/settings',
		{
			intent: 'two-factor-confirm',
			factorId: enrollment.factorId,
			uri: enrollment.uri,
			code: code(enrollment.secret),
		},
		context(user.supabase, await account()),
	)
	expect(on).toMatchObject({
		status: 302,
		location: '/settings#recovery-codes',
		toast:
			'Two-factor authentication is on. Save your recovery codes now: they are shown only once.',
	})
	const flash = on.cookies.find((c) => c.startsWith('ls_recovery_codes='))!
	const shown = await settingsPage(user, flash)
	return { user, secret: enrollment.secret, codes: shown.twoFactor.recoveryCodes!, shown, flash }
}

describe('recovery codes', () => {
	test('turning two-factor on shows ten codes once; only their hashes are kept', async () => {
		const { user, codes, shown, flash } = await turnedOn()
		expect(codes).toHaveLength(10)
		expect(new Set(codes).size).toBe(10)
		for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)
		expect(shown.twoFactor.recoveryCodesLeft).toBe(10)
		// the page clears its cookie and is never cached
		expect(shown.headers.get('Cache-Control')).toBe('no-store')
		expect(shown.headers.get('Set-Cookie')).toMatch(/^ls_recovery_codes=;.*Max-Age=0/)
		// shown once: the next page has none, and another user's session reads none from the cookie
		expect((await settingsPage(user)).twoFactor.recoveryCodes).toBeNull()
		const stranger = await newUser()
		expect((await settingsPage(stranger, flash)).twoFactor.recoveryCodes).toBeNull()
		const rows = await db
			.selectFrom('two_factor_recovery_codes')
			.select(['code_hash'])
			.where('user_id', '=', user.id)
			.execute()
		expect(rows).toHaveLength(10)
		const stored = JSON.stringify(rows)
		for (const c of codes) {
			expect(stored).not.toContain(c)
			expect(stored).not.toContain(c.replace('-', ''))
		}
	})

	test('each code counts once; new codes replace the old ones', async () => {
		const { user, codes } = await turnedOn()
		expect(await spendRecoveryCode(user.id, codes[0]!.toUpperCase())).toBe(true)
		expect(await spendRecoveryCode(user.id, codes[0]!)).toBe(false)
		expect((await settingsPage(user)).twoFactor.recoveryCodesLeft).toBe(9)
		const account = await loadAccountContext(db, { id: user.id, email: user.email })
		const renewed = await post(
			settings,
			'/settings',
			{ intent: 'two-factor-recovery-codes' },
			context(user.supabase, account),
		)
		expect(renewed).toMatchObject({
			status: 302,
			location: '/settings#recovery-codes',
			toast:
				'New recovery codes: the old ones no longer work. Save these now: they are shown only once.',
		})
		const flash = renewed.cookies.find((c) => c.startsWith('ls_recovery_codes='))!
		const fresh = (await settingsPage(user, flash)).twoFactor.recoveryCodes!
		expect(fresh).toHaveLength(10)
		expect(await spendRecoveryCode(user.id, codes[1]!)).toBe(false)
		expect(await spendRecoveryCode(user.id, fresh[1]!)).toBe(true)
	})

	test('at the sign-in code step, a recovery code gets a user without their phone in', async () => {
		const { user, codes } = await turnedOn()
		// password only: the code step
		const session = await signIn(user.email)
		const atStep = context(session.supabase, null, true)
		const wrong = await post(
			verify,
			'/signin/verify',
			{ intent: 'recovery', recoveryCode: 'abcde-fghjk' },
			atStep,
		)
		expect(wrong).toMatchObject({
			status: 400,
			errors: { recoveryCode: ['This recovery code is not right, or it was used already.'] },
		})
		const used = await post(
			verify,
			'/signin/verify',
			{ intent: 'recovery', recoveryCode: ` ${codes[3]!.toUpperCase()} ` },
			atStep,
		)
		expect(used).toMatchObject({
			status: 302,
			location: '/settings#two-factor-authentication',
			toast:
				'You signed in with a recovery code, and two-factor authentication is now off. Set it up again with your new phone: you get new recovery codes.',
		})
		// the lost factor is gone, so this session is a signed-in one; the codes went with it
		const account = await loadAccountContext(db, { id: user.id, email: user.email })
		expect(account.twoFactorEnabled).toBe(false)
		expect((await session.supabase.auth.mfa.listFactors()).data!.all).toEqual([])
		expect(await spendRecoveryCode(user.id, codes[4]!)).toBe(false)
	})
})

describe('a password-only session of a user with two-factor', () => {
	test('changes neither password nor email in /settings', async () => {
		const { user } = await turnedOn()
		const session = await signIn(user.email)
		// as if a screen let it through: the auth service itself refuses
		const account = await loadAccountContext(db, { id: user.id, email: user.email })
		const ctx = context(session.supabase, { ...account, sessionAal: 'aal1' })
		const message =
			'Confirm it is you with your authenticator app first: sign out, then sign in again with your code.'
		const password = await post(
			settings,
			'/settings',
			{ intent: 'password', password: 'taken-over-9', confirmPassword: 'taken-over-9' },
			ctx,
		)
		expect(password).toMatchObject({ status: 403, errors: { password: [message] } })
		const email = await post(
			settings,
			'/settings',
			{ intent: 'email', email: `thief-${randomUUID().slice(0, 8)}@example.com` },
			ctx,
		)
		expect(email).toMatchObject({ status: 403, errors: { email: [message] } })
		expect((await getEmailState(user.id)).pending).toBeNull()
		const stillOld = await (
			await client()
		).auth.signInWithPassword({
			email: user.email,
			password: PASSWORD,
		})
		expect(stillOld.error).toBeNull()
	})
})
