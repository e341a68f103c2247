import { z } from 'zod'
import { bulkSelectionFields } from '../bulk/schemas.ts'
import { EmailSchema, NewPasswordSchema, SignInSchema } from '../auth/schemas.ts'

// Shared by the forms (conform on the client) and the actions (parseWithZod).
export const TEAM_ROLES = ['admin', 'editor'] as const
export type TeamRoleName = (typeof TEAM_ROLES)[number]

/** Scopes an owner grants an editor; admins have 'all' through their role. */
export const GRANTABLE_SCOPES = ['domain-management:read', 'domain-management:write'] as const
export type GrantableScope = (typeof GRANTABLE_SCOPES)[number]

export const ROLE_LABELS: Record<TeamRoleName, string> = { admin: 'Admin', editor: 'Editor' }
export const SCOPE_LABELS: Record<GrantableScope, string> = {
	'domain-management:read': 'View domains, URL forwarding and inbox orders',
	'domain-management:write': 'Change domains, URL forwarding and order inboxes',
}

const AccessFields = {
	role: z.enum(TEAM_ROLES, { error: 'Choose admin or editor' }),
	access: z.enum(['all', 'selected'], { error: 'Choose which workspaces' }),
	// checked against the account by the services: a foreign or malformed id is a 404
	workspaceIds: z.array(z.string().max(100)).max(500),
	scopes: z.array(z.enum(GRANTABLE_SCOPES, { error: 'Choose permissions from the list' })).max(2),
}

type AccessInput = { access: 'all' | 'selected'; workspaceIds: string[] }

function requireWorkspaces(value: AccessInput, ctx: z.RefinementCtx) {
	if (value.access === 'selected' && value.workspaceIds.length === 0) {
		ctx.addIssue({
			code: 'custom',
			path: ['workspaceIds'],
			message: 'Choose at least one workspace',
		})
	}
}

export const InviteSchema = z
	.object({ intent: z.literal('invite'), email: EmailSchema, ...AccessFields })
	.superRefine(requireWorkspaces)

export const UpdateMemberSchema = z
	.object({ intent: z.literal('update'), memberId: z.string().max(100), ...AccessFields })
	.superRefine(requireWorkspaces)

const MemberIdAction = <T extends string>(intent: T) =>
	z.object({ intent: z.literal(intent), memberId: z.string().max(100) })

export const ResendSchema = MemberIdAction('resend')
export const RevokeSchema = MemberIdAction('revoke')
export const RemoveSchema = MemberIdAction('remove')

export const TeamActionSchema = z.discriminatedUnion('intent', [
	InviteSchema,
	UpdateMemberSchema,
	ResendSchema,
	RevokeSchema,
	RemoveSchema,
])

/** The access a member has, as the services take it. */
export type MemberAccess = {
	role: TeamRoleName
	accessAllWorkspaces: boolean
	workspaceIds: string[]
	scopes: GrantableScope[]
}

export function toMemberAccess(value: {
	role: TeamRoleName
	access: 'all' | 'selected'
	workspaceIds: string[]
	scopes: GrantableScope[]
}): MemberAccess {
	return {
		role: value.role,
		accessAllWorkspaces: value.access === 'all',
		workspaceIds: value.access === 'all' ? [] : value.workspaceIds,
		scopes: value.scopes,
	}
}

// /accept-invitation: sign in or sign up on the spot (the email must be the invited one).
export const AcceptSchema = z.object({ intent: z.literal('accept'), token: z.string().max(200) })
export const AcceptSignInSchema = SignInSchema.omit({ redirectTo: true }).extend({
	intent: z.literal('signin'),
	token: z.string().max(200),
})
export const AcceptSignUpSchema = z.object({
	intent: z.literal('signup'),
	token: z.string().max(200),
	fullName: z
		.string({ error: 'Enter your name' })
		.trim()
		.min(1, 'Enter your name')
		.max(100, 'Use at most 100 characters'),
	email: EmailSchema,
	password: NewPasswordSchema,
})
export const AcceptSignOutSchema = z.object({
	intent: z.literal('signout'),
	token: z.string().max(200),
})

export const AcceptInvitationSchema = z.discriminatedUnion('intent', [
	AcceptSchema,
	AcceptSignInSchema,
	AcceptSignUpSchema,
	AcceptSignOutSchema,
])

/** The invitations table's bulk form (components/ui/bulk-toolbar.tsx). */
export const InvitationBulkSchema = z.object({
	intent: z.literal('bulk'),
	action: z.enum(['resend', 'revoke'], { error: 'Pick an action.' }),
	...bulkSelectionFields({}),
})
