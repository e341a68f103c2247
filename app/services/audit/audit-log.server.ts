import type { Kysely } from 'kysely'
import type { DB } from '../../../db/schema.ts'

export type AuditEntry = {
	/** who did it; null for the system (a webhook, a scheduled job) */
	actorUserId: string | null
	/** dotted verb, e.g. billing.subscription.cancel */
	action: string
	targetType: string
	targetId: string
	before?: unknown
	after?: unknown
}

/**
 * Appends to audit_log (admin and billing actions). Pass the transaction that
 * makes the change, so the record and the change exist together.
 */
export async function recordAudit(db: Kysely<DB>, entries: AuditEntry | readonly AuditEntry[]) {
	// a job that changes many rows records them in one statement, not one per row
	const list = Array.isArray(entries) ? entries : [entries as AuditEntry]
	if (list.length === 0) return
	await db
		.insertInto('audit_log')
		.values(
			list.map((entry) => ({
				actor_user_id: entry.actorUserId,
				action: entry.action,
				target_type: entry.targetType,
				target_id: entry.targetId,
				before: entry.before === undefined ? null : JSON.stringify(entry.before),
				after: entry.after === undefined ? null : JSON.stringify(entry.after),
			})),
		)
		.execute()
}
