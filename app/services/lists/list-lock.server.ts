import type { Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { FormError, notFound } from '../../utils/http-errors.server.ts'
import { LIST_KINDS, type ListKind } from './list-kinds.ts'

// A list's delete and the starts of the work on it (runs, uploads, retries) take the list's row
// lock in their transactions, so that of a delete and a start at the same instant exactly one
// wins (decision 0107).

/**
 * The one rule for deleting a list (a row's Delete, the API's, bulk delete): not while an
 * enrichment run is pending or running on it (it holds credits and writes the rows), nor a
 * verification (it holds credits too), nor while an EmailBison upload reads it. Refused with
 * the reason, as a FormError. Read in the delete's transaction after `lockListForDelete`
 * took the list's row: a start holding it has committed by then, and its run is seen.
 */
export async function refuseDeleteWhileInUse(
	kind: ListKind,
	listId: string,
	executor: Kysely<DB> = db,
) {
	const column = kind === 'leads' ? 'list_id' : 'company_list_id'
	const leads = kind === 'leads'
	// one statement (a fresh snapshot, after the lock): company lists have only enrichments
	const busy = await executor
		.selectNoFrom((eb) => [
			eb
				.exists(
					eb
						.selectFrom('enrichment_runs')
						.select('id')
						.where(column, '=', listId)
						.where('status', 'in', [0, 1]),
				)
				.as('enriching'),
			(leads
				? eb.exists(
						eb
							.selectFrom('verification_runs')
							.select('id')
							.where('list_id', '=', listId)
							.where('status', 'in', [0, 1]),
					)
				: eb.lit(false)
			).as('verifying'),
			(leads
				? eb.exists(
						eb
							.selectFrom('emailbison_upload')
							.select('id')
							.where('list_id', '=', listId)
							.where('status', 'in', [0, 1]),
					)
				: eb.lit(false)
			).as('uploading'),
		])
		.executeTakeFirstOrThrow()
	if (busy.enriching)
		throw new FormError('An enrichment is running on this list; cancel it or wait for it to end.')
	if (busy.verifying)
		throw new FormError('A verification is running on this list; cancel it or wait for it to end.')
	if (busy.uploading)
		throw new FormError('This list is being uploaded to EmailBison; wait for the upload to end.')
}

/**
 * A run's start on a list takes the list's row first in its transaction (decision 0107): FOR
 * KEY SHARE, so starts and the list's own progress writes go side by side while a delete (FOR
 * UPDATE) waits for the start to commit and then sees its run. A list a delete removed first
 * is gone here: the list's 404, as for a form sent after the delete, not a foreign-key error.
 * `update` for a start that must also be the only one on the list (a verification).
 */
export async function lockListForStart(
	trx: Kysely<DB>,
	kind: ListKind,
	listId: string,
	strength: 'key share' | 'update' = 'key share',
) {
	const row = await trx
		.selectFrom(LIST_KINDS[kind].listTable)
		.select('id')
		.where('id', '=', listId)
		.$call((q) => (strength === 'update' ? q.forUpdate() : q.forKeyShare()))
		.executeTakeFirst()
	if (!row) notFound('This list')
}

/**
 * The delete's half of the lock: the list's row FOR UPDATE (it waits for the starts holding
 * it), then the rule, in the transaction that deletes. The check and the delete are one
 * step: no run can start between them. Returns the row as it is now, or null when another
 * delete took it first (a form sent twice: deleted all the same).
 */
export async function lockListForDelete(trx: Kysely<DB>, kind: ListKind, listId: string) {
	const row = await trx
		.selectFrom(LIST_KINDS[kind].listTable)
		.select(['id', 'status'])
		.where('id', '=', listId)
		.forUpdate()
		.executeTakeFirst()
	if (!row) return null
	await refuseDeleteWhileInUse(kind, listId, trx)
	return row
}
