import { createCookie } from 'react-router'
import { getConfig } from '../../config.server.ts'
import { isUuid, notFound } from '../../utils/http-errors.server.ts'
import { singleton } from '../../utils/singleton.server.ts'

/** How many users' choices one browser remembers (a shared computer). */
const REMEMBERED_USERS = 5

// { [user id]: workspace id }, signed so it cannot be forged (it is checked anyway).
const workspaceCookie = () =>
	singleton('workspace-cookie', () => {
		const config = getConfig()
		return createCookie('ls_workspace', {
			path: '/',
			httpOnly: true,
			sameSite: 'lax',
			secure: config.APP_URL.startsWith('https:'),
			secrets: [config.APP_SECRET],
			maxAge: 60 * 60 * 24 * 365,
		})
	})

type Choices = Record<string, string>

/** What picks the current workspace: the user, and the workspaces the user may use, in WORKSPACE_ORDER. */
type UserWorkspaces = {
	user: { id: string }
	workspaces: readonly { id: string; name: string }[]
}

/*
 * "The current workspace", the workspace a request acts in, has two forms that must agree:
 * the TypeScript one (currentWorkspaceOf) over the request context's workspaces, and the SQL one
 * (currentWorkspaceSql) inside the request context's statement, where a page's read made with
 * the context needs it before any TypeScript runs (decision 0054). Both: the remembered choice
 * while the user may use it, else the first in WORKSPACE_ORDER, else none.
 * current-workspace.test.ts runs both on the same cases (decision 0075).
 */

/** The order "first" means: by name, case aside, then by id (the context lists workspaces so). */
export const WORKSPACE_ORDER = 'lower(name), id'

/**
 * The SQL form of currentWorkspaceOf: a query of the one current workspace's id, over `visible`
 * (a relation of the workspaces the user may use: id, name), `chosen` the remembered choice.
 */
export function currentWorkspaceSql(visible: string, chosen: string) {
	return `select id from ${visible} order by (id = ${chosen}::uuid) is true desc, ${WORKSPACE_ORDER} limit 1`
}

async function readChoices(request: Request): Promise<Choices> {
	const value: unknown = await workspaceCookie()
		.parse(request.headers.get('Cookie'))
		.catch(() => null)
	if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
	return Object.fromEntries(
		Object.entries(value as Record<string, unknown>).filter(
			(entry): entry is [string, string] => isUuid(entry[0]) && isUuid(entry[1]),
		),
	)
}

/**
 * The workspace this request works in: the user's remembered choice when it is still
 * one of the workspaces the user may use (checked on every request, against the
 * context already loaded), else the first of them, else none.
 */
export async function resolveCurrentWorkspaceId(
	request: Request,
	account: UserWorkspaces,
): Promise<string | null> {
	if (account.workspaces.length === 0) return null
	return currentWorkspaceOf(account, await chosenWorkspaceId(request, account.user.id))
}

/** The workspace `userId` chose last in this browser, unchecked (null when none). */
export async function chosenWorkspaceId(request: Request, userId: string) {
	return (await readChoices(request))[userId] ?? null
}

/** The chosen workspace while the user may use it, else the first, else none (currentWorkspaceSql). */
export function currentWorkspaceOf(account: UserWorkspaces, chosen: string | null) {
	if (account.workspaces.length === 0) return null
	return account.workspaces.some((w) => w.id === chosen) ? chosen! : account.workspaces[0]!.id
}

/**
 * Remembers the user's choice; a workspace the user may not use (another account's,
 * outside a member's allowed set, malformed) is a 404. Returns the Set-Cookie value.
 */
export async function chooseWorkspace(
	request: Request,
	account: UserWorkspaces,
	workspaceId: unknown,
) {
	const workspace = account.workspaces.find((w) => w.id === workspaceId)
	if (!isUuid(workspaceId) || !workspace) notFound('This workspace')
	const choices = await readChoices(request)
	delete choices[account.user.id]
	const kept = Object.entries(choices).slice(-(REMEMBERED_USERS - 1))
	const next = Object.fromEntries([...kept, [account.user.id, workspace.id]])
	return { workspace, setCookie: await workspaceCookie().serialize(next) }
}
