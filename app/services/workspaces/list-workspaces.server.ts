import { canManageWorkspaces, canViewDomains, type ActingAccount } from './access.server.ts'
import {
	countWorkspaceContents,
	describeContents,
	type WorkspaceContents,
} from './count-workspace-contents.server.ts'

export type WorkspaceSummary = {
	id: string
	name: string
	contents: WorkspaceContents
	/** what it holds, in words; '' when empty */
	summary: string
}

/** The workspaces this user may use, with what each holds, and whether it may manage them. */
export async function listWorkspaces(account: ActingAccount) {
	const ids = account.workspaces.map((w) => w.id)
	const contents = await countWorkspaceContents(account.accountId, ids)
	const empty: WorkspaceContents = {
		leadLists: 0,
		companyLists: 0,
		domains: 0,
		inboxOrders: 0,
		inboxes: 0,
	}
	// what this user would see in each: domains, inbox orders and inboxes need a domain scope
	const seesDomains = canViewDomains(account)
	const workspaces: WorkspaceSummary[] = account.workspaces.map((w) => {
		const held = contents.get(w.id) ?? empty
		const c = seesDomains ? held : { ...held, domains: 0, inboxOrders: 0, inboxes: 0 }
		return { id: w.id, name: w.name, contents: c, summary: describeContents(c) }
	})
	return { workspaces, canManage: canManageWorkspaces(account) }
}
