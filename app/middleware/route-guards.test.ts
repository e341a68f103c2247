import { afterEach, describe, expect, test } from 'vitest'
import type { AccountContext } from '../context.server.ts'
import { resetSingleton } from '../utils/singleton.server.ts'
import { screens } from '../routes.ts'
import { guards, signInUrl } from './route-guards.server.ts'

const request = new Request('http://localhost/admin-dashboard')
const staff = (twoFactorEnabled: boolean, sessionAal: 'aal1' | 'aal2') =>
	({ platformRole: 'admin', twoFactorEnabled, sessionAal }) as AccountContext

/** Where the admin guard sends `account` (null: it lets it in). */
function adminGuard(account: AccountContext) {
	try {
		guards.admin({ request, account })
		return null
	} catch (thrown) {
		return (thrown as Response).headers.get('Location')
	}
}

describe('ADMIN_REQUIRE_MFA', () => {
	afterEach(() => {
		delete process.env.ADMIN_REQUIRE_MFA
		resetSingleton('config')
	})

	test('off (the default): staff reach the admin area with the password alone', () => {
		resetSingleton('config')
		expect(adminGuard(staff(false, 'aal1'))).toBeNull()
	})

	test('on: staff without two-factor set it up first; with it, only an aal2 session gets in', () => {
		process.env.ADMIN_REQUIRE_MFA = 'true'
		resetSingleton('config')
		expect(adminGuard(staff(false, 'aal1'))).toBe('/settings?twoFactor=required')
		expect(adminGuard(staff(true, 'aal1'))).toBe('/signin/verify')
		expect(adminGuard(staff(true, 'aal2'))).toBeNull()
	})
})

describe('signInUrl', () => {
	test("a guarded page's data request comes back to the page, the home page's (/_.data) too", () => {
		const url = (path: string) => signInUrl(new Request(`http://localhost${path}`))
		expect(url('/_.data')).toBe('/signin')
		expect(url('/_.data?x=1')).toBe(`/signin?redirectTo=${encodeURIComponent('/?x=1')}`)
		expect(url('/lists/_.data')).toBe(`/signin?redirectTo=${encodeURIComponent('/lists/')}`)
		expect(url('/_.data?_routes=root,routes/dashboard')).toBe('/signin')
		expect(url('/settings.data')).toBe(`/signin?redirectTo=${encodeURIComponent('/settings')}`)
		expect(url('/settings')).toBe(`/signin?redirectTo=${encodeURIComponent('/settings')}`)
	})
})

describe('the Developers pages', () => {
	test('need a sign-in, not a plan: after a plan lapses its tokens can still be revoked and its webhooks paused', () => {
		const developers = screens.filter((screen) => screen.path.startsWith('developers'))
		expect(developers.map((screen) => screen.path).sort()).toEqual([
			'developers',
			'developers/api',
			'developers/webhooks',
		])
		for (const screen of developers) expect(screen.middleware, screen.path).toEqual(['auth'])
	})
})
