import { createCookie } from 'react-router'
import type { AccountContext } from '../../context.server.ts'
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
	account: AccountContext,
): Promise<string | null> {
	if (account.workspaces.length === 0) return null
	return currentWorkspaceOf(account, await chosenWorkspaceId(request, account.user.id))
}

/** The workspace `userId` chose last in this browser, unchecked (null when none). */
export async function chosenWorkspaceId(request: Request, userId: string) {
	return (await readChoices(request))[userId] ?? null
}

/** The chosen workspace while the user may use it, else the first, else none. */
export function currentWorkspaceOf(account: AccountContext, chosen: string | null) {
	if (account.workspaces.length === 0) return null
	return account.workspaces.some((w) => w.id === chosen) ? chosen! : account.workspaces[0]!.id
}

/**
 * Remembers the user's choice; a workspace the user may not use (another account's,
 * outside a member's allowed set, malformed) is a 404. Returns the Set-Cookie value.
 */
export async function chooseWorkspace(
	request: Request,
	account: AccountContext,
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
