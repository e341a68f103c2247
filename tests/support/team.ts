import type { Database } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import type { ActingAccount } from '../../app/services/workspaces/access.server.ts'
import { statusOf } from '../../app/utils/http-errors.server.ts'
import { FormError } from '../../app/utils/http-errors.server.ts'
import { insertSubscription, insertUser } from './factories.ts'

type User = { id: string; email: string }

export async function insertWorkspace(db: Database, ownerId: string, name: string) {
	const row = await db
		.insertInto('workspaces')
		.values({ user_id: ownerId, name })
		.returning('id')
		.executeTakeFirstOrThrow()
	return row.id
}

/** An active team member of `owner`, as accepting an invitation leaves it. */
export async function insertMember(
	db: Database,
	owner: User,
	options: {
		role?: 'admin' | 'editor'
		workspaceIds?: string[] | 'all'
		scopes?: string[]
		user?: User
	} = {},
) {
	const user = options.user ?? (await insertUser(db))
	const all = (options.workspaceIds ?? 'all') === 'all'
	const row = await db
		.insertInto('team_members')
		.values({
			user_id: owner.id,
			email: user.email,
			role: options.role ?? 'editor',
			access_all_workspaces: all,
			member_user_id: user.id,
			status: 'active',
			scopes: options.scopes ?? [],
			accepted_at: new Date(),
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	if (!all) {
		for (const workspace_id of options.workspaceIds as string[]) {
			await db
				.insertInto('team_member_workspace_acess')
				.values({ team_member_id: row.id, workspace_id })
				.execute()
		}
	}
	await db
		.updateTable('profiles')
		.set({ primary_user_id: owner.id })
		.where('user_id', '=', user.id)
		.execute()
	return { ...user, memberId: row.id }
}

export async function insertInvitation(
	db: Database,
	owner: User,
	options: { email?: string; hash?: string; expiresAt?: Date } = {},
) {
	const row = await db
		.insertInto('team_members')
		.values({
			user_id: owner.id,
			email: options.email ?? `invitee-${Math.random().toString(36).slice(2, 10)}@example.com`,
			role: 'editor',
			status: 'invited',
			invitation_token_hash: options.hash ?? null,
			expires_at: options.expiresAt ?? new Date(Date.now() + 7 * 86_400_000),
		})
		.returning(['id', 'email'])
		.executeTakeFirstOrThrow()
	return row
}

/** One of each thing a workspace can hold, in `workspaceId`. */
export async function insertHoldings(db: Database, ownerId: string, workspaceId: string) {
	const list = await db
		.insertInto('processing_list')
		.values({ user_id: ownerId, workspace_id: workspaceId, name: 'Leads', source_type: 'upload' })
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('leads')
		.values({
			list_id: list.id,
			user_id: ownerId,
			workspace_id: workspaceId,
			email: `lead-${list.id.slice(0, 6)}@example.com`,
		})
		.execute()
	const companyList = await db
		.insertInto('company_scraping_list')
		.values({
			user_id: ownerId,
			workspace_id: workspaceId,
			name: 'Companies',
			source_type: 'domains',
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const domain = await db
		.insertInto('domains')
		.values({
			user_id: ownerId,
			workspace_id: workspaceId,
			name: `d-${list.id.slice(0, 8)}.example`,
			source: 'imported',
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	const order = await db
		.insertInto('inbox_orders')
		.values({
			user_id: ownerId,
			workspace_id: workspaceId,
			provider: 'google',
			inboxes_per_domain: 2,
			domain_ids: [domain.id],
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await db
		.insertInto('inboxes')
		.values({
			user_id: ownerId,
			workspace_id: workspaceId,
			order_id: order.id,
			domain_id: domain.id,
			provider: 'google',
			address: `ada@d-${list.id.slice(0, 8)}.example`,
		})
		.execute()
	return { list: list.id, companyList: companyList.id, domain: domain.id, inboxOrder: order.id }
}

/**
 * Account A (owner with a plan; workspaces X, Y and an empty E; one of everything in X;
 * a pending invitation) and its members: an admin, editors without and with each
 * scope, an admin limited to Y (no access to X); and a stranger owning account B.
 */
export async function buildAccounts(db: Database) {
	const owner = await insertUser(db, {
		email: `owner-${Math.random().toString(36).slice(2, 8)}@example.com`,
	})
	await insertSubscription(db, owner.id, { plan: 2 })
	const X = await insertWorkspace(db, owner.id, 'X')
	const Y = await insertWorkspace(db, owner.id, 'Y')
	const E = await insertWorkspace(db, owner.id, 'Empty')
	const inX = await insertHoldings(db, owner.id, X)
	const admin = await insertMember(db, owner, { role: 'admin' })
	const editor = await insertMember(db, owner, { role: 'editor' })
	const editorRead = await insertMember(db, owner, {
		role: 'editor',
		scopes: ['domain-management:read'],
	})
	const editorWrite = await insertMember(db, owner, {
		role: 'editor',
		scopes: ['domain-management:read', 'domain-management:write'],
	})
	const noX = await insertMember(db, owner, { role: 'admin', workspaceIds: [Y] })
	const invitation = await insertInvitation(db, owner)

	const stranger = await insertUser(db)
	await insertSubscription(db, stranger.id, { plan: 1 })
	const Z = await insertWorkspace(db, stranger.id, 'Z')
	const inZ = await insertHoldings(db, stranger.id, Z)
	const strangerInvitation = await insertInvitation(db, stranger)

	return {
		users: { owner, admin, editor, editorRead, editorWrite, noX, stranger },
		workspaces: { X, Y, E, Z },
		inX,
		inZ,
		invitation,
		strangerInvitation,
	}
}

export type Persona =
	'owner' | 'admin' | 'editor' | 'editorRead' | 'editorWrite' | 'noX' | 'stranger'
export const PERSONAS: Persona[] = [
	'owner',
	'admin',
	'editor',
	'editorRead',
	'editorWrite',
	'noX',
	'stranger',
]

export async function contextOf(db: Database, user: User) {
	return (await loadAccountContext(db, { id: user.id, email: user.email })) as ActingAccount
}

export type Outcome = 'ok' | 'form' | number

/** What a service call came to: 'ok', 'form' (bad input, shown on the form) or the HTTP status. */
export async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
	try {
		await run()
		return 'ok'
	} catch (error) {
		if (error instanceof FormError) return 'form'
		const status = statusOf(error)
		if (status !== undefined) return status
		throw error
	}
}
