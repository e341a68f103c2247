import { CompiledQuery } from 'kysely'
import { createContext } from 'react-router'
import { prepareStatement, type Database } from '../db/index.server.ts'
import type { Supabase } from './services/auth/session.server.ts'
import {
	currentWorkspaceSql,
	WORKSPACE_ORDER,
} from './services/workspaces/current-workspace.server.ts'

export const SCOPES = ['all', 'domain-management:read', 'domain-management:write'] as const
export type Scope = (typeof SCOPES)[number]
export type TeamRole = 'admin' | 'editor'
export type PlatformRole = 'admin' | 'editor'

export type Subscription = {
	active_plan: number
	status: string
	billing_date: string | null
	expire_date: string | null
	cancel_at_period_end: boolean
}

/** Everything SPEC.md section 7 loads at start-up, for one signed-in user. */
export type AccountContext = {
	user: { id: string; email: string }
	/** the account the user acts in: its own id, or its owner's for a team member */
	accountId: string | null
	isAdmin: boolean
	platformRole: PlatformRole | null
	isLTD: boolean
	activePlan: number
	subscription: Subscription | null
	settings: { id: string; emailbisonApiUrl: string; hasSuperAdminKey: boolean } | null
	/** provider names that have an API key (never the keys) */
	apiKeyProviders: string[]
	isTeamMember: boolean
	/** a team member whose membership is active (SPEC.md section 4) */
	isActiveTeamMember: boolean
	teamRole: TeamRole | null
	teamMemberId: string | null
	primaryUserId: string | null
	accessAllWorkspaces: boolean
	allowedWorkspaces: string[]
	scopes: Scope[]
	creditBalance: number
	workspaces: { id: string; name: string }[]
	/** the account's onboarding (/onboarding) is completed */
	onboardingCompleted: boolean
	/** the user has a verified TOTP factor: sign-in asks for a code */
	twoFactorEnabled: boolean
	/** notifications not yet read, up to UNREAD_NOTIFICATIONS_CAP (the bell's number) */
	unreadNotifications: number
	/** the session's authenticator assurance level (aal2 once a code was given); null without a session */
	sessionAal: 'aal1' | 'aal2' | null
}

export type RequestContext = {
	supabase: Supabase
	/** headers (Set-Cookie) the response must carry */
	responseHeaders: Headers
	account: AccountContext | null
	/**
	 * The workspace the user works in: the remembered choice (cookie) while it is one of
	 * `account.workspaces`, else the first of them; null when there is none.
	 */
	currentWorkspaceId: string | null
	/**
	 * Signed in with the password but not yet with the second factor: `account` is null until
	 * the code is given at /signin/verify.
	 */
	secondFactorPending?: boolean
	/** a page's read made in the context's statement (readWithContextOf) */
	alongside?: { read: ReadWithContext<unknown>; value: unknown } | null
}

/** What `read` found in the request context's statement, when this request made it. */
export function readWithContextOf<T>(context: RequestContext, read: ReadWithContext<T>): T | null {
	return context.alongside?.read === read ? (context.alongside.value as T) : null
}

export const requestContext = createContext<RequestContext>()

type ContextRow = {
	session_live: boolean
	account_id: string | null
	primary_user_id: string | null
	platform_role: PlatformRole | null
	is_ltd: boolean
	settings: { id: string; emailbison_api_url: string; has_super_admin_key: boolean } | null
	subscription: Subscription | null
	providers: string[]
	team_member: {
		id: string
		role: TeamRole
		access_all_workspaces: boolean
		scopes: Scope[]
	} | null
	allowed_workspace_ids: string[]
	credit_balance: number
	workspaces: { id: string; name: string }[]
	onboarding_completed: boolean
	two_factor_enabled: boolean
	unread_notifications: number
}

/**
 * The context of a signed-in request: null when the access token's session is gone (signed
 * out, ended by a password change or an admin, the user banned or deleted), so a copied
 * cookie stops working on the next request, not when its token expires. Same one statement.
 */
export async function loadSessionContext(
	db: Database,
	user: SessionUser,
	{ checkSession = true }: { checkSession?: boolean } = {},
): Promise<AccountContext | null> {
	return (await runContextQuery(db, user, { sessionId: user.sessionId, checkSession })).account
}

/**
 * loadSessionContext and a page's read in the same statement. The read's value is null when
 * the session is gone; `chosenWorkspaceId` is the user's remembered workspace choice.
 */
export async function loadSessionContextWith<T>(
	db: Database,
	user: SessionUser,
	{
		checkSession = true,
		chosenWorkspaceId,
		read,
	}: { checkSession?: boolean; chosenWorkspaceId: string | null; read: ReadWithContext<T> },
): Promise<{ account: AccountContext | null; value: T | null }> {
	return runContextQuery(
		db,
		user,
		{ sessionId: user.sessionId, checkSession },
		{ read, chosenWorkspaceId },
	)
}

type SessionUser = {
	id: string
	email: string
	sessionId: string | null
	aal?: 'aal1' | 'aal2' | null
}

/**
 * The account context of `user` without a session (jobs, admin tools, tests): the same
 * statement with the session check off.
 */
export async function loadAccountContext(
	db: Database,
	user: { id: string; email: string },
): Promise<AccountContext> {
	const { account } = await runContextQuery(db, user, { sessionId: null, checkSession: false })
	return account!
}

/** A settings row as the context holds it (the key's presence only, never the key). */
const SETTINGS_JSON = `json_build_object('id', id, 'emailbison_api_url', emailbison_api_url,
	'has_super_admin_key', super_admin_api_key is not null)`

// With a page's read alongside: the workspace the request works in (currentWorkspaceSql, the
// SQL form of what the middleware picks from the context's workspaces) and whether the user sees
// every workspace.
const ALONGSIDE_CTES = `,
	current_workspace as (${currentWorkspaceSql('visible', '$4')}),
	sees_all as (
		select not exists (select 1 from tm) or coalesce((select access_all_workspaces from tm), false) as value
	)`

/**
 * The bell's number: the notifications the user may see (the account's, of the visible
 * workspaces, and those of none with access to all) after their "mark all read" mark and not
 * read one by one, counted up to UNREAD_NOTIFICATIONS_CAP. The notifications service's rule in
 * SQL; notifications.test.ts holds the two equal.
 */
export const UNREAD_NOTIFICATIONS_CAP = 100
const unreadNotifications = (me: string) => `(select count(*)::int from (
			select 1 from notifications n
			where n.account_id = (select id from acct)
				and (n.workspace_id in (select id from visible)
					or (n.workspace_id is null
						and (not exists (select 1 from tm) or (select access_all_workspaces from tm))))
				and n.id > coalesce((select read_through from notification_settings
					where user_id = ${me}), 0)
				and not exists (select 1 from notification_reads r
					where r.notification_id = n.id and r.user_id = ${me})
			limit ${UNREAD_NOTIFICATIONS_CAP}
		) unread)`

const SESSION_LIVE = `live as (
		-- the token's session row still exists and its user is neither banned nor deleted
		select not $1::boolean or exists (
			select 1 from auth.sessions s join auth.users u on u.id = s.user_id
			where s.id = $2::uuid and s.user_id = $3::uuid
				and (s.not_after is null or s.not_after > now())
				and (u.banned_until is null or u.banned_until <= now())
				and u.deleted_at is null
		) as ok
	)`

// The API's form ($1 the token's hash): the token, unrevoked, and its maker, neither banned nor
// deleted; its last use is written at most once a minute, in the same statement.
const API_TOKEN_LIVE = `tok as (
		select t.id, t.account_id, t.created_by, t.scopes, t.workspace_ids, u.email
		from api_tokens t join auth.users u on u.id = t.created_by
		where t.token_hash = $1 and t.revoked_at is null
			and (u.banned_until is null or u.banned_until <= now()) and u.deleted_at is null
	),
	touched as (
		update api_tokens set last_used_at = now()
		where id = (select id from tok)
			and (last_used_at is null or last_used_at < now() - interval '1 minute')
	),
	live as (select exists (select 1 from tok) as ok)`

/**
 * The request-context statement: $1 check the session, $2 the session id, $3 the user id; with a
 * page's read alongside, $4 the workspace the user chose (or null).
 */
const contextSql = (read?: ReadWithContext<unknown>, me = '$3') => `
	with
	${me === '$3' ? SESSION_LIVE : API_TOKEN_LIVE},
	me as (select primary_user_id from profiles where user_id = ${me}),
	tm as (
		select t.id, t.role, t.access_all_workspaces, t.scopes, t.user_id as owner_id
		from team_members t
		where t.member_user_id = ${me}
			and t.status = 'active'
			and t.user_id = (select primary_user_id from me)
		limit 1
	),
	acct as (
		select case
			when not (select ok from live) then null
			when (select primary_user_id from me) is null then ${me}::uuid
			else (select owner_id from tm)
		end as id
	),
	st as (
		select id, emailbison_api_url, super_admin_api_key from settings
		where user_id = (select id from acct)
	),
	sub as (
		select active_plan, status, billing_date, expire_date, cancel_at_period_end
		from subscriptions
		where user_id = (select id from acct) and status = 'active' and expire_date > now()
		order by expire_date desc
		limit 1
	),
	allowed as (
		select workspace_id from team_member_workspace_acess
		where team_member_id = (select id from tm)
	),
	-- the workspaces the user may use: all of the account's, or a member's allowed ones
	visible as (
		select w.id, w.name from workspaces w
		where w.user_id = (select id from acct)
			and (
				not exists (select 1 from tm)
				or (select access_all_workspaces from tm)
				or w.id in (select workspace_id from allowed)
			)
	)${read ? ALONGSIDE_CTES : ''}
	select${read ? `\n\t\t${read.columns},` : ''}
		(select ok from live) as session_live,
		(select id from acct) as account_id,
		(select primary_user_id from me) as primary_user_id,
		(select role from roles where user_id = ${me} order by created_at, id limit 1) as platform_role,
		coalesce((select is_ltd from profiles where user_id = (select id from acct)), false) as is_ltd,
		(select ${SETTINGS_JSON} from st) as settings,
		(select row_to_json(sub) from sub) as subscription,
		coalesce((select array_agg(provider order by provider) from api_keys
			where user_id = (select id from acct)), '{}') as providers,
		(select json_build_object('id', id, 'role', role,
			'access_all_workspaces', access_all_workspaces, 'scopes', scopes) from tm) as team_member,
		coalesce((select array_agg(workspace_id) from allowed), '{}') as allowed_workspace_ids,
		coalesce((select balance from credit_balances where user_id = (select id from acct)), 0) as credit_balance,
		coalesce((
			select json_agg(json_build_object('id', id, 'name', name) order by ${WORKSPACE_ORDER})
			from visible
		), '[]') as workspaces,
		coalesce((select completed_at is not null from onboarding
			where user_id = (select id from acct)), false) as onboarding_completed,
		exists (select 1 from auth.mfa_factors where user_id = ${me}::uuid
			and status = 'verified') as two_factor_enabled,
		${unreadNotifications(me)} as unread_notifications
`

const CONTEXT_SQL = contextSql()
// Planning this statement costs more than running it: prepared once per connection.
prepareStatement('account_context', CONTEXT_SQL)

/**
 * A page's first read, sent in the request context's statement: one round trip for the context
 * and the page, where two in turn cost the web process and the database a wake-up each
 * (decision 0054). Its columns may use `CONTEXT_REFS`; `take` reads its value from the row.
 */
export type ReadWithContext<T> = {
	/** names its form of the statement (prepared once per connection, per name) */
	name: string
	/** select-list items, each ending in `as <column>` */
	columns: string
	take: (row: Record<string, unknown>) => T
}

/**
 * A route's loader that asks for `read` to be made in the request context's statement: the
 * session middleware finds it through the route the request matches (app/server/
 * route-handles.server.ts) and knows no page (decision 0075). On the loader, not in `handle`:
 * `handle` is sent to the browser too, and a read is server code.
 */
export function withContextRead<L extends (...args: never[]) => unknown>(
	read: ReadWithContext<unknown>,
	loader: L,
): L & { contextRead: ReadWithContext<unknown> } {
	return Object.assign(loader, { contextRead: read })
}

/** What a read alongside the context may use, as SQL expressions over the statement's parts. */
export const CONTEXT_REFS = {
	/** the acting account (null when the session is gone or a member's access ended) */
	account: '(select id from acct)',
	/** the active subscription's plan (null without one) */
	plan: '(select active_plan from sub)',
	/** the workspace the request works in (null when the user may use none) */
	currentWorkspace: '(select id from current_workspace)',
	/** the user sees every workspace of the account, and its unassigned lists and jobs */
	seesAllWorkspaces: '(select value from sees_all)',
} as const

const statementsWithReads = new Map<string, string>()

function contextSqlWith(read: ReadWithContext<unknown>) {
	let text = statementsWithReads.get(read.name)
	if (!text) {
		text = contextSql(read)
		prepareStatement(`account_context_with_${read.name}`, text)
		statementsWithReads.set(read.name, text)
	}
	return text
}

// An account's settings row, made with an empty EmailBison URL (SPEC.md section 7).
const CREATE_SETTINGS_SQL = `
	with inserted as (
		insert into settings (user_id, emailbison_api_url) values ($1, '')
		on conflict (user_id) do nothing
		returning id, emailbison_api_url, super_admin_api_key
	)
	select ${SETTINGS_JSON} as settings from inserted
`
const READ_SETTINGS_SQL = `
	select ${SETTINGS_JSON} as settings from settings where user_id = $1
`

async function createSettings(db: Database, accountId: string) {
	type Row = Pick<ContextRow, 'settings'>
	const created = await db.executeQuery<Row>(CompiledQuery.raw(CREATE_SETTINGS_SQL, [accountId]))
	if (created.rows[0]) return created.rows[0].settings
	// made meanwhile by a concurrent first request: a new statement sees its row
	const read = await db.executeQuery<Row>(CompiledQuery.raw(READ_SETTINGS_SQL, [accountId]))
	return read.rows[0]?.settings ?? null
}

/**
 * The whole request context in ONE statement (one round trip), which only reads: whether the
 * session is live, settings (made on an account's first request when missing), platform role,
 * LTD flag, active subscription, API key providers, team membership and the workspaces the
 * user may use.
 */
async function runContextQuery<T>(
	db: Database,
	user: { id: string; email: string; aal?: 'aal1' | 'aal2' | null },
	session: { sessionId: string | null; checkSession: boolean },
	alongside?: { read: ReadWithContext<T>; chosenWorkspaceId: string | null },
): Promise<{ account: AccountContext | null; value: T | null }> {
	const parameters = [session.checkSession, session.sessionId, user.id]
	// Text and parameters fixed: compiled once, not per request (Kysely would rebuild and walk it).
	const query = alongside
		? CompiledQuery.raw(contextSqlWith(alongside.read), [
				...parameters,
				alongside.chosenWorkspaceId,
			])
		: CompiledQuery.raw(CONTEXT_SQL, parameters)
	const { rows } = await db.executeQuery<ContextRow>(query)
	const row = rows[0]!
	if (!row.session_live) return { account: null, value: null }
	const value = alongside ? alongside.read.take(row) : null
	return { account: await accountOf(db, row, user), value }
}

async function accountOf(
	db: Database,
	row: ContextRow,
	user: { id: string; email: string; aal?: 'aal1' | 'aal2' | null },
): Promise<AccountContext> {
	// once in an account's life, on its first request: the statement above only reads
	if (row.account_id && !row.settings) row.settings = await createSettings(db, row.account_id)
	const team = row.team_member
	const isTeamMember = row.primary_user_id !== null
	const subscription = row.subscription
	const account: AccountContext = {
		user,
		accountId: row.account_id,
		isAdmin: row.platform_role === 'admin',
		platformRole: row.platform_role,
		isLTD: row.is_ltd,
		activePlan: subscription?.active_plan ?? 0,
		subscription,
		settings: row.settings
			? {
					id: row.settings.id,
					emailbisonApiUrl: row.settings.emailbison_api_url,
					hasSuperAdminKey: row.settings.has_super_admin_key,
				}
			: null,
		apiKeyProviders: row.providers,
		isTeamMember,
		isActiveTeamMember: isTeamMember && team !== null,
		teamRole: team?.role ?? null,
		teamMemberId: team?.id ?? null,
		primaryUserId: row.primary_user_id,
		accessAllWorkspaces: team ? team.access_all_workspaces : true,
		allowedWorkspaces: row.allowed_workspace_ids,
		scopes: isTeamMember ? (team?.role === 'admin' ? ['all'] : (team?.scopes ?? [])) : ['all'],
		creditBalance: row.credit_balance,
		workspaces: row.workspaces,
		onboardingCompleted: row.onboarding_completed,
		twoFactorEnabled: row.two_factor_enabled,
		unreadNotifications: row.unread_notifications,
		sessionAal: user.aal ?? null,
	}
	return account
}

/** An API token as the request context's statement reads it (never its hash). */
export type ApiTokenRow = {
	id: string
	account_id: string
	created_by: string
	scopes: string[]
	workspace_ids: string[] | null
	email: string
}

// An API caller has no bell: the notifications are not counted (decision 0103).
const API_TOKEN_SQL = contextSql(
	{ name: 'api_token', columns: '(select row_to_json(tok) from tok) as token', take: () => null },
	'(select created_by from tok)',
)
	.replace(ALONGSIDE_CTES, '')
	.replace(`${unreadNotifications('(select created_by from tok)')} as`, '0 as')
prepareStatement('api_token_context', API_TOKEN_SQL)

/**
 * The API's request context in ONE statement: the token by its hash and its maker's context
 * as it is now (a member who lost access loses it through the token too); null when the
 * token is unknown or revoked, or its maker is banned, deleted, or acts in another account.
 */
export async function loadApiTokenContext(
	db: Database,
	tokenHash: string,
): Promise<{ account: AccountContext; token: ApiTokenRow } | null> {
	const { rows } = await db.executeQuery<ContextRow & { token: ApiTokenRow | null }>(
		CompiledQuery.raw(API_TOKEN_SQL, [tokenHash]),
	)
	const row = rows[0]
	if (!row?.session_live || !row.token) return null
	const token = row.token
	const account = await accountOf(db, row, { id: token.created_by, email: token.email })
	if (account.accountId !== token.account_id) return null
	return { account, token }
}

/** Owner means not a team member; only owners manage billing and the team. */
export function isOwner(account: AccountContext) {
	return !account.isTeamMember && account.accountId === account.user.id
}

export function hasActivePlan(account: AccountContext) {
	return account.activePlan > 0 || account.isLTD
}

export function hasAnyScope(account: AccountContext, wanted: readonly Scope[]) {
	return account.scopes.some((s) => wanted.includes(s))
}
