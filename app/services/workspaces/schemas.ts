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

/**
 * Where a list, company list, domain or inbox order is moved to another workspace (the
 * attach-workspace modal as a page); screens showing those rows link here.
 */
export function attachWorkspaceHref(type: AttachableType, id: string, redirectTo?: string) {
	const params = new URLSearchParams({ type, id })
	if (redirectTo) params.set('redirectTo', redirectTo)
	return `/attach-workspace?${params}`
}
