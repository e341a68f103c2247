import { RouterContextProvider } from 'react-router'
import { afterEach, describe, expect, test } from 'vitest'
import { resetSingleton } from '../../utils/singleton.server.ts'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { newOwner, newTeamMember } from '../../../tests/support/billing.ts'
import { loadAccountContext, requestContext, type AccountContext } from '../../context.server.ts'
import { statusOf } from '../../utils/http-errors.server.ts'
import { loader } from './dev-mailbox.tsx'

// The local mailbox holds reset and magic links: whoever reads it can take over any account,
// the platform admin's included. Only a signed-in platform admin may.

function args(account: AccountContext | null, path = '/dev/mailbox') {
	const context = new RouterContextProvider()
	context.set(requestContext, { account, responseHeaders: new Headers(), supabase: null } as never)
	return { request: new Request(`http://203.0.113.9${path}`), context, params: {} } as never
}

async function outcome(run: () => Promise<unknown>) {
	try {
		const result = await run()
		return { status: statusOf(result) ?? 200, result }
	} catch (error) {
		return {
			status: statusOf(error),
			location: (error as Response).headers?.get?.('Location'),
			result: error,
		}
	}
}

async function platformStaff(role: 'admin' | 'editor') {
	const user = await insertUser(db)
	await db.insertInto('roles').values({ user_id: user.id, role }).execute()
	return loadAccountContext(db, user)
}

const RESET = 'Reset your password: http://localhost:3000/auth/v1/verify?token=secret-reset-token'

describe('/dev/mailbox', () => {
	test('an anonymous visitor is sent to the admin sign-in and sees no mail', async () => {
		await db
			.insertInto('mailbox')
			.values({ to_address: 'admin@example.com', subject: 'Reset', text_body: RESET })
			.execute()
		const anonymous = await outcome(() => loader(args(null)))
		expect(anonymous.status).toBe(302)
		expect(anonymous.location).toBe('/admin-login')
		expect(JSON.stringify(anonymous.result)).not.toContain('secret-reset-token')
	})

	test('account owners, team members and platform editors get 404', async () => {
		const owner = await newOwner()
		const member = await newTeamMember(owner.user.id, 'admin')
		const editor = await platformStaff('editor')
		for (const account of [owner.account, member.account, editor]) {
			const seen = await outcome(() => loader(args(account, '/dev/mailbox?to=admin@example.com')))
			expect(seen.status).toBe(404)
			expect(JSON.stringify(seen.result)).not.toContain('secret-reset-token')
		}
	})

	test('a platform admin reads the mail, and the page is never cached or sent as a referrer', async () => {
		await db
			.insertInto('mailbox')
			.values({ to_address: 'someone@example.com', subject: 'Reset', text_body: RESET })
			.execute()
		const admin = await platformStaff('admin')
		const response = (await loader(args(admin, '/dev/mailbox?to=someone@example.com'))) as {
			data: { messages: { text: string }[] }
			init: { headers: Record<string, string> }
		}
		expect(response.data.messages.map((m) => m.text)).toEqual([RESET])
		expect(response.init.headers).toMatchObject({
			'Cache-Control': 'no-store',
			'Referrer-Policy': 'no-referrer',
		})
	})
})

describe('/dev/mailbox with ADMIN_REQUIRE_MFA', () => {
	afterEach(() => {
		delete process.env.ADMIN_REQUIRE_MFA
		resetSingleton('config')
	})

	test('a platform admin signed in with the password alone gets the second factor first, as in the admin area', async () => {
		process.env.ADMIN_REQUIRE_MFA = 'true'
		resetSingleton('config')
		await db
			.insertInto('mailbox')
			.values({ to_address: 'mfa@example.com', subject: 'Reset', text_body: RESET })
			.execute()
		const admin = await platformStaff('admin')
		// no factor yet: set two-factor up, as /admin-dashboard asks
		const noFactor = await outcome(() =>
			loader(args({ ...admin, sessionAal: 'aal1', twoFactorEnabled: false })),
		)
		expect(noFactor.status).toBe(302)
		expect(noFactor.location).toBe('/settings?twoFactor=required')
		expect(JSON.stringify(noFactor.result)).not.toContain('secret-reset-token')
		// a factor and a password-only session: the code first, then back here
		const aal1 = await outcome(() =>
			loader(args({ ...admin, sessionAal: 'aal1', twoFactorEnabled: true })),
		)
		expect(aal1.status).toBe(302)
		expect(aal1.location).toBe('/signin/verify?redirectTo=%2Fdev%2Fmailbox')
		const aal2 = (await loader(
			args(
				{ ...admin, sessionAal: 'aal2', twoFactorEnabled: true },
				'/dev/mailbox?to=mfa@example.com',
			),
		)) as { data: { messages: { text: string }[] } }
		expect(aal2.data.messages.map((m) => m.text)).toEqual([RESET])
	})
})
