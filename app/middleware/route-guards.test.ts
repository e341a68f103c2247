import { afterEach, describe, expect, test } from 'vitest'
import type { AccountContext } from '../context.server.ts'
import { resetSingleton } from '../utils/singleton.server.ts'
import { guards } from './route-guards.server.ts'

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
