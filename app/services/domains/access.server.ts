import type { AccountContext } from '../../context.server.ts'
import { forbidden } from '../../utils/http-errors.server.ts'
import {
	actingAccount,
	canChangeDomains,
	canUseWorkspace,
	canViewDomains,
	type ActingAccount,
} from '../workspaces/access.server.ts'

/**
 * DESIGN.md section 4: domains, forwarding, inbox orders and domain checkout need scope all
 * (owner, team admin) or a granted domain-management scope: read views, write changes.
 * Every domain service calls this, not only the screens.
 */
export function domainAccount(
	account: AccountContext | null,
	need: 'view' | 'change',
): ActingAccount {
	const acting = actingAccount(account)
	if (!canViewDomains(acting)) forbidden('You do not have access to domain management.')
	if (need === 'change' && !canChangeDomains(acting)) {
		forbidden('Your access to domain management is read only.')
	}
	return acting
}

/** The workspaces whose domains the user sees (null: rows with no workspace, for full access). */
export function visibleWorkspaceIds(account: ActingAccount) {
	return account.workspaces.map((w) => w.id)
}

export function assertWorkspace(account: ActingAccount, workspaceId: string | null) {
	if (!canUseWorkspace(account, workspaceId)) forbidden('You do not have access to this workspace.')
}
