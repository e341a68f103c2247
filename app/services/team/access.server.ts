import { isOwner, type AccountContext } from '../../context.server.ts'
import { forbidden } from '../../utils/http-errors.server.ts'

/** DESIGN.md section 4: only the owner manages team members and invitations. */
export function assertCanManageTeam(account: AccountContext) {
	if (!isOwner(account)) forbidden('Only the account owner manages team members and invitations.')
}
