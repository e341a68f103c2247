import type { AccountContext, PlatformRole } from '../../context.server.ts'
import { forbidden } from '../../utils/http-errors.server.ts'

export type Staff = AccountContext & { platformRole: PlatformRole }
export type PlatformAdmin = AccountContext & { platformRole: 'admin' }

/** DESIGN.md section 4: platform admins and editors see the admin area. */
export function assertStaff(account: AccountContext | null): Staff {
	if (!account?.platformRole) forbidden('Only platform administrators see the admin area.')
	return account as Staff
}

/** Every changing admin action: platform admins only; an editor only looks (403). */
export function assertPlatformAdmin(account: AccountContext | null): PlatformAdmin {
	const staff = assertStaff(account)
	if (staff.platformRole !== 'admin') forbidden('Platform editors may look but not change.')
	return staff as PlatformAdmin
}
