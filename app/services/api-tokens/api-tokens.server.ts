import { createHash, randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import {
	hasAnyScope,
	isOwner,
	loadApiTokenContext,
	type AccountContext,
	type ApiTokenRow,
	type Scope,
} from '../../context.server.ts'
import { forbidden, FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { scopeAllows, TOKEN_PREFIX, type ApiScope } from './scopes.ts'

// API tokens (issue 37, decision 0093): shown once, kept as a SHA-256 (32 random bytes need no
// slow hash), resolved on every request with their maker's rights as they are now.

/** DESIGN.md section 4: the owner and team admins manage API access (as provider keys). */
export function canManageApiTokens(account: AccountContext) {
	return isOwner(account) || (account.isActiveTeamMember && account.teamRole === 'admin')
}

function assertCanManage(account: AccountContext | null) {
	const acting = actingAccount(account)
	if (!canManageApiTokens(acting)) {
		forbidden('Only the account owner and team admins can manage API tokens.')
	}
	return acting
}

export function hashApiToken(token: string) {
	return createHash('sha256').update(token).digest('hex')
}

export type ApiTokenView = {
	id: string
	name: string
	prefix: string
	scopes: string[]
	workspaces: { id: string; name: string }[] | null
	createdAt: string
	lastUsedAt: string | null
	createdByEmail: string
	mine: boolean
}

/**
 * The tokens this person manages, newest first: all of the account's for the owner, their own
 * for a team admin. Revoked ones are not shown.
 */
export async function listApiTokens(context: AccountContext | null): Promise<ApiTokenView[]> {
	const account = assertCanManage(context)
	let query = db
		.selectFrom('api_tokens as t')
		.innerJoin('auth.users as u', 'u.id', 't.created_by')
		.select([
			't.id',
			't.name',
			't.prefix',
			't.scopes',
			't.workspace_ids',
			't.created_at',
			't.last_used_at',
			't.created_by',
			'u.email',
		])
		.where('t.account_id', '=', account.accountId)
		.where('t.revoked_at', 'is', null)
	if (!isOwner(account)) query = query.where('t.created_by', '=', account.user.id)
	const rows = await query.orderBy('t.created_at', 'desc').orderBy('t.id').execute()
	const names = await db
		.selectFrom('workspaces')
		.select(['id', 'name'])
		.where('user_id', '=', account.accountId)
		.execute()
	return rows.map((row) => ({
		id: row.id,
		name: row.name,
		prefix: row.prefix,
		scopes: row.scopes,
		workspaces: row.workspace_ids
			? row.workspace_ids.map((id) => ({
					id,
					name: names.find((w) => w.id === id)?.name ?? 'Deleted workspace',
				}))
			: null,
		createdAt: row.created_at.toISOString(),
		lastUsedAt: row.last_used_at?.toISOString() ?? null,
		createdByEmail: row.email ?? '',
		mine: row.created_by === account.user.id,
	}))
}

/**
 * Makes a token; the answer holds the token itself, which is never shown again. Workspaces
 * must be ones its maker may use now (the token is narrowed to them again on every request).
 */
export async function createApiToken(
	context: AccountContext | null,
	input: { name: string; scopes: ApiScope[]; workspaceIds: string[] },
) {
	const account = assertCanManage(context)
	const workspaceIds = [...new Set(input.workspaceIds)]
	for (const id of workspaceIds) {
		if (!account.workspaces.some((w) => w.id === id)) {
			throw new FormError('Choose workspaces you can use.', 'workspaceIds')
		}
	}
	const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`
	const row = await db
		.insertInto('api_tokens')
		.values({
			account_id: account.accountId,
			created_by: account.user.id,
			name: input.name,
			prefix: token.slice(0, TOKEN_PREFIX.length + 4),
			token_hash: hashApiToken(token),
			scopes: [...new Set(input.scopes)].sort(),
			workspace_ids: workspaceIds.length ? workspaceIds : null,
		})
		.returning(['id', 'name'])
		.executeTakeFirstOrThrow()
	return { id: row.id, name: row.name, token }
}

/** Revokes a token: the next request with it gets 401. Another's token (or none) is a 404. */
export async function revokeApiToken(context: AccountContext | null, tokenId: string) {
	const account = assertCanManage(context)
	if (!isUuid(tokenId)) notFound('This token')
	let query = db
		.updateTable('api_tokens')
		.set({ revoked_at: sql`now()` })
		.where('id', '=', tokenId)
		.where('account_id', '=', account.accountId)
		.where('revoked_at', 'is', null)
	if (!isOwner(account)) query = query.where('created_by', '=', account.user.id)
	const row = await query.returning('name').executeTakeFirst()
	if (!row) notFound('This token')
	return row
}

export type ApiCaller = {
	/** the maker's context as it is now, narrowed to the token's workspaces and scopes */
	account: AccountContext
	token: ApiTokenRow
}

/**
 * Who a bearer token speaks for, in one statement, or null (unknown, revoked, its maker gone or
 * out of the account). The services then apply their own rules to the narrowed context.
 */
export async function authenticateApiToken(token: string): Promise<ApiCaller | null> {
	if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null
	const found = await loadApiTokenContext(db, hashApiToken(token))
	if (!found) return null
	return { account: narrowedTo(found.account, found.token), token: found.token }
}

const DOMAIN_VIEW: Scope[] = ['all', 'domain-management:read', 'domain-management:write']

/** The maker's rights cut down to the token's: never more than either. */
function narrowedTo(account: AccountContext, token: ApiTokenRow): AccountContext {
	const only = token.workspace_ids
	const canReadDomains =
		scopeAllows(token.scopes, 'domains:read') && hasAnyScope(account, DOMAIN_VIEW)
	return {
		...account,
		workspaces: only ? account.workspaces.filter((w) => only.includes(w.id)) : account.workspaces,
		// a token for some workspaces never sees the account's unassigned rows
		accessAllWorkspaces: only ? false : account.accessAllWorkspaces,
		// domains are read-only through the API for now
		scopes: canReadDomains ? ['domain-management:read'] : [],
	}
}
