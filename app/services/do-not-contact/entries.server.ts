import { sql, type Expression, type SqlBool } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { isOwner, type AccountContext } from '../../context.server.ts'
import { FormError, forbidden, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { csvCell } from '../emailbison/mapping.ts'
import { actingAccount, type ActingAccount } from '../workspaces/access.server.ts'
import { DNC_REASONS, freeMailQuestion, parseEntry, type DncReason } from './schemas.ts'

/**
 * Who sees and changes which entries (issue 36): everyone in the account sees the
 * account-wide entries, and the entries of the workspaces they may use; account-wide entries
 * are changed by the owner and team admins only, a workspace's by whoever may use it.
 */
export function dncAccount(account: AccountContext | null) {
	const acting = actingAccount(account)
	return {
		acting,
		canEditAccountWide: isOwner(acting) || acting.teamRole === 'admin',
		workspaceIds: acting.workspaces.map((w) => w.id),
	}
}
type DncAccount = ReturnType<typeof dncAccount>

/** The scope a form names ('account' or a workspace id) if this user may change entries there. */
function writableScope(access: DncAccount, scope: string, field = 'scope'): string | null {
	if (scope === 'account') {
		if (!access.canEditAccountWide)
			throw new FormError(
				'Only the account owner and team admins change account-wide entries. Choose one of your workspaces.',
				field,
			)
		return null
	}
	if (!access.workspaceIds.includes(scope))
		throw new FormError('Choose one of your workspaces', field)
	return scope
}

function visible(access: DncAccount) {
	return ({ eb, or }: { eb: any; or: any }): Expression<SqlBool> =>
		or([
			eb('d.workspace_id', 'is', null),
			...(access.workspaceIds.length ? [eb('d.workspace_id', 'in', access.workspaceIds)] : []),
		])
}

export type DncEntry = {
	id: string
	value: string
	kind: string
	reason: string
	workspaceId: string | null
	workspaceName: string | null
	addedBy: string | null
	createdAt: Date
	canRemove: boolean
}

/** The entries this user sees, newest first, optionally those containing `q`. */
export async function listEntries(
	account: AccountContext | null,
	options: { q?: string; limit: number; offset: number },
) {
	const access = dncAccount(account)
	let query = db
		.selectFrom('do_not_contact as d')
		.leftJoin('workspaces as w', 'w.id', 'd.workspace_id')
		.leftJoin('auth.users as u', 'u.id', 'd.added_by')
		.where('d.user_id', '=', access.acting.accountId)
		.where(visible(access))
	const q = options.q?.trim().toLowerCase()
	if (q) query = query.where('d.value', 'like', `%${q.replace(/[\\%_]/g, '\\$&')}%`)
	const [rows, total] = await Promise.all([
		query
			.select([
				'd.id',
				'd.value',
				'd.kind',
				'd.reason',
				'd.workspace_id',
				'w.name as workspace_name',
				'u.email as added_by',
				'd.created_at',
			])
			.orderBy('d.created_at', 'desc')
			.orderBy('d.id', 'desc')
			.limit(options.limit)
			.offset(options.offset)
			.execute(),
		query.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
	])
	return {
		total: total.n,
		entries: rows.map((r): DncEntry => ({
			id: r.id,
			value: r.value,
			kind: r.kind!,
			reason: r.reason,
			workspaceId: r.workspace_id,
			workspaceName: r.workspace_name,
			addedBy: r.added_by ?? null,
			createdAt: r.created_at,
			canRemove: r.workspace_id === null ? access.canEditAccountWide : true,
		})),
	}
}

/**
 * Adds one entry. A free mail domain needs `confirmFreeMail` (the form's second submit); an
 * entry already there is a message, not a second row.
 */
export async function addEntry(
	account: AccountContext | null,
	input: { value: string; reason: DncReason; scope: string; confirmFreeMail?: boolean },
) {
	const access = dncAccount(account)
	const parsed = parseEntry(input.value)
	if (!parsed.ok) throw new FormError(parsed.problem, 'value')
	const workspaceId = writableScope(access, input.scope)
	if (parsed.freeMail && !input.confirmFreeMail)
		throw new FormError(freeMailQuestion(parsed.value), 'confirmFreeMail')
	const row = await db
		.insertInto('do_not_contact')
		.values({
			user_id: access.acting.accountId,
			workspace_id: workspaceId,
			value: parsed.value,
			reason: input.reason,
			added_by: access.acting.user.id,
		})
		.onConflict((oc) => oc.doNothing())
		.returning(['id', 'kind', 'workspace_id', 'created_at'])
		.executeTakeFirst()
	if (!row) throw new FormError(`${parsed.value} is already on this do-not-contact list`, 'value')
	return {
		id: row.id,
		value: parsed.value,
		kind: row.kind!,
		workspaceId: row.workspace_id,
		createdAt: row.created_at,
	}
}

/** Removes one entry this user may change; another account's or an unseen one is a 404. */
export async function removeEntry(account: AccountContext | null, id: unknown) {
	const access = dncAccount(account)
	if (!isUuid(id)) notFound('This entry')
	const row = await db
		.selectFrom('do_not_contact as d')
		.select(['d.id', 'd.value', 'd.workspace_id'])
		.where('d.id', '=', id)
		.where('d.user_id', '=', access.acting.accountId)
		.where(visible(access))
		.executeTakeFirst()
	if (!row) notFound('This entry')
	if (row.workspace_id === null && !access.canEditAccountWide)
		forbidden('Only the account owner and team admins remove account-wide entries.')
	await db.deleteFrom('do_not_contact').where('id', '=', row.id).execute()
	return row
}

/** Every entry this user sees as CSV lines (formula-safe), read in keyset pages. */
export async function* entriesCsv(account: AccountContext | null) {
	const access = dncAccount(account)
	yield 'value,kind,reason,scope,added_by,added_at\r\n'
	let after = '00000000-0000-0000-0000-000000000000'
	for (;;) {
		const rows = await db
			.selectFrom('do_not_contact as d')
			.leftJoin('workspaces as w', 'w.id', 'd.workspace_id')
			.leftJoin('auth.users as u', 'u.id', 'd.added_by')
			.select(['d.id', 'd.value', 'd.kind', 'd.reason', 'w.name', 'u.email', 'd.created_at'])
			.where('d.user_id', '=', access.acting.accountId)
			.where(visible(access))
			.where('d.id', '>', after)
			.orderBy('d.id')
			.limit(5000)
			.execute()
		if (rows.length === 0) return
		yield rows
			.map(
				(r) =>
					[
						r.value,
						r.kind,
						DNC_REASONS[r.reason as DncReason] ?? r.reason,
						r.name ?? 'All workspaces',
						r.email ?? '',
						r.created_at.toISOString(),
					]
						.map(csvCell)
						.join(',') + '\r\n',
			)
			.join('')
		after = rows[rows.length - 1]!.id
	}
}

export { writableScope, type DncAccount, type ActingAccount }
