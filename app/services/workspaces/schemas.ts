import { z } from 'zod'
import { RedirectToSchema } from '../auth/schemas.ts'

// Shared by the forms (conform on the client) and the actions (parseWithZod).
export const WorkspaceNameSchema = z
	.string({ error: 'Enter a name' })
	.trim()
	.min(1, 'Enter a name')
	.max(80, 'Use at most 80 characters')

/** Ids are checked against the account by the services: a foreign or malformed one is a 404. */
const IdSchema = z.string({ error: 'Choose a workspace' }).max(100)

export const CreateWorkspaceSchema = z.object({
	intent: z.literal('create'),
	name: WorkspaceNameSchema,
})

export const RenameWorkspaceSchema = z.object({
	intent: z.literal('rename'),
	workspaceId: IdSchema,
	name: WorkspaceNameSchema,
})

export const DeleteWorkspaceSchema = z.object({
	intent: z.literal('delete'),
	workspaceId: IdSchema,
})

export const WorkspaceActionSchema = z.discriminatedUnion('intent', [
	CreateWorkspaceSchema,
	RenameWorkspaceSchema,
	DeleteWorkspaceSchema,
])

export const SwitchWorkspaceSchema = z.object({
	workspaceId: IdSchema,
	redirectTo: RedirectToSchema,
})

/** What the attach-workspace modal moves (SPEC.md section 2). */
export const ATTACHABLE_TYPES = ['list', 'company-list', 'domain', 'inbox-order'] as const
export type AttachableType = (typeof ATTACHABLE_TYPES)[number]

export const AttachWorkspaceSchema = z.object({
	workspaceId: IdSchema,
	redirectTo: RedirectToSchema,
})

/** The page each kind of item is listed on: where a move returns when it was not started from a page. */
const ITEM_HOME: Record<AttachableType, string> = {
	list: '/scrape',
	'company-list': '/scrape',
	domain: '/domains',
	'inbox-order': '/inboxes',
}

/**
 * Where a move goes back to: the page it started from (an in-app path, through safeRedirect),
 * else the page that lists that kind of item. Never the request's own URL, which under
 * JavaScript is the `.data` endpoint and would land on the 404 screen.
 */
export function moveReturnPath(type: unknown, ...candidates: unknown[]): string {
	for (const candidate of candidates) {
		const path = RedirectToSchema.safeParse(candidate ?? undefined).data
		if (path && !/^\/[^?#]*\.data(?:[?#]|$)/.test(path)) return path
	}
	return ITEM_HOME[type as AttachableType] ?? '/'
}

/**
 * Where a list, company list, domain or inbox order is moved to another workspace (the
 * attach-workspace modal as a page); screens showing those rows link here with their own path
 * as redirectTo, so the move comes back to them.
 */
export function attachWorkspaceHref(type: AttachableType, id: string, redirectTo?: string) {
	const params = new URLSearchParams({ type, id })
	if (redirectTo) params.set('redirectTo', redirectTo)
	return `/attach-workspace?${params}`
}
