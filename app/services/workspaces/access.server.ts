import { hasAnyScope, isOwner, type AccountContext, type Scope } from '../../context.server.ts'
import { forbidden } from '../../utils/http-errors.server.ts'

/** An account context that acts in an account (a member whose access ended acts in none). */
export type ActingAccount = AccountContext & { accountId: string }

export function actingAccount(account: AccountContext | null): ActingAccount {
	if (!account) forbidden('Sign in first.')
	if (!account.accountId) {
		forbidden('Your access to this team has ended. Ask the account owner to invite you again.')
	}
	return account as ActingAccount
}

/** DESIGN.md section 4: the owner and team admins create, rename and delete workspaces. */
export function canManageWorkspaces(account: AccountContext) {
	return isOwner(account) || (account.isActiveTeamMember && account.teamRole === 'admin')
}

export function assertCanManageWorkspaces(account: AccountContext) {
	if (!canManageWorkspaces(account)) {
		forbidden('Only the account owner and team admins can create, rename or delete workspaces.')
	}
}

/**
 * Whether the user may see and touch what a workspace holds. Rows with no workspace
 * belong to the account as a whole: only those with access to all workspaces use them.
 * `account.workspaces` is already narrowed to the member's allowed set by the request context.
 */
export function canUseWorkspace(account: AccountContext, workspaceId: string | null) {
	if (workspaceId === null) return account.accessAllWorkspaces
	return account.workspaces.some((w) => w.id === workspaceId)
}

const VIEW_DOMAINS: Scope[] = ['all', 'domain-management:read', 'domain-management:write']
const CHANGE_DOMAINS: Scope[] = ['all', 'domain-management:write']

/** Domains, forwarding and inbox orders: scope all, or the granted domain-management scopes. */
export function canViewDomains(account: AccountContext) {
	return hasAnyScope(account, VIEW_DOMAINS)
}

export function canChangeDomains(account: AccountContext) {
	return hasAnyScope(account, CHANGE_DOMAINS)
}
