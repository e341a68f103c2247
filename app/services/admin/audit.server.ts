import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import type { AccountContext } from '../../context.server.ts'
import { assertStaff } from './access.server.ts'

export type AuditFilters = { action?: string; actor?: string; target?: string }

function like(value: string) {
	return `%${value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The audit log, newest first: `action` is a prefix (admin., billing.), actor an email part. */
export async function listAuditLog(
	account: AccountContext | null,
	filters: AuditFilters,
	db: Kysely<DB> = defaultDb,
) {
	assertStaff(account)
	let query = db
		.selectFrom('audit_log as a')
		.leftJoin('auth.users as u', 'u.id', 'a.actor_user_id')
		.select([
			'a.id',
			'a.action',
			'a.target_type',
			'a.target_id',
			'a.before',
			'a.after',
			'a.created_at',
			'u.email as actor_email',
		])
		.orderBy('a.created_at', 'desc')
		.orderBy('a.id', 'desc')
		.limit(200)
	if (filters.action) {
		query = query.where(sql<boolean>`lower(a.action) like ${like(filters.action)}`)
	}
	if (filters.actor) {
		query =
			filters.actor === 'system'
				? query.where('a.actor_user_id', 'is', null)
				: query.where(sql<boolean>`lower(u.email) like ${like(filters.actor)}`)
	}
	if (filters.target) query = query.where('a.target_id', '=', filters.target)
	return query.execute()
}
