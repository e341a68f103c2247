import { sql, type Kysely } from 'kysely'
import { db as defaultDb } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { isTransientDatabaseError } from '../../../db/errors.ts'
import { loadAccountContext, type AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import { FormError, isUuid, notFound, statusOf } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { MAX_FORM_IDS } from './schemas.ts'
import type { BulkFilter, BulkHandler, BulkOutcome, BulkRow } from './types.ts'

/** Rows read and worked through per step of the job. */
const BATCH = 100
/** Skipped or failed rows named in the result; the counts hold all of them. */
const MAX_NOTES = 20
/** Why another account's (or a missing) id is skipped: the same words for both, telling nothing. */
export const NOT_YOURS = 'not found in your account or workspace'

export type BulkSelection = { ids: string[] } | { filter: BulkFilter }

/**
 * Records "apply `action` to these rows" and queues its job in one transaction (pass the
 * idempotency transaction: a double submit makes one row and one job). Ids are checked per row
 * by the job, not here: another account's ids end as skipped and counted, never touched.
 * Returns the status row's id.
 */
export async function startBulkAction(
	account: AccountContext | null,
	handler: BulkHandler,
	input: { action: string; params?: Record<string, string>; selection: BulkSelection },
	db: Kysely<DB> = defaultDb,
) {
	handler.authorize(account)
	const acting = actingAccount(account)
	const action = handler.actions[input.action]
	if (!action) throw new FormError('Pick an action.', 'action')
	const params = input.params ?? {}
	await action.params?.(params, account!)
	let total: number
	let ids: string[] | null = null
	if ('ids' in input.selection) {
		ids = [...new Set(input.selection.ids.map((id) => id.toLowerCase()))]
		if (ids.length === 0) throw new FormError('Select at least one row.', 'ids')
		if (ids.length > MAX_FORM_IDS)
			throw new FormError(`Select at most ${MAX_FORM_IDS} rows, or all matching the filter.`, 'ids')
		total = ids.length
	} else {
		total = await handler.count(account!, input.selection.filter)
		if (total === 0) throw new FormError('Nothing matches this filter.', 'ids')
	}
	const row = await db
		.insertInto('bulk_actions')
		.values({
			user_id: acting.accountId,
			created_by: acting.user.id,
			kind: handler.kind,
			action: input.action,
			params: JSON.stringify(params),
			ids,
			filter: 'filter' in input.selection ? JSON.stringify(input.selection.filter) : null,
			total,
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	await enqueue('bulk-action', { bulkId: row.id }, { db })
	return { id: row.id, total, label: action.label }
}

export type BulkNote = { name: string; reason: string; outcome: 'skipped' | 'failed' }

/** A bulk action of the account (another account's, or a bad id: 404), as its progress shows. */
export async function findBulkAction(
	account: AccountContext | null,
	id: unknown,
	db: Kysely<DB> = defaultDb,
) {
	const acting = actingAccount(account)
	if (!isUuid(id)) notFound('This bulk action')
	const row = await db
		.selectFrom('bulk_actions')
		.select([
			'id',
			'kind',
			'action',
			'status',
			'total',
			'done',
			'skipped',
			'failed',
			'notes',
			'error',
			'created_at',
			'finished_at',
		])
		.where('id', '=', id)
		.where('user_id', '=', acting.accountId)
		.executeTakeFirst()
	if (!row) notFound('This bulk action')
	return { ...row, notes: row.notes as BulkNote[] }
}

type Tally = { done: number; skipped: number; failed: number; notes: BulkNote[] }

/**
 * The bulk-action job: works through the rows in id order from the checkpoint (`last_id`),
 * and records each row's outcome with the checkpoint, so a run after a crash goes on from the
 * last finished row (at most the one in flight runs again; every action is safe to repeat).
 * Ids of another account or workspace are skipped and counted, never passed to the action.
 * Permissions are read again as the job starts: a user who lost access touches nothing.
 */
export async function runBulkAction(
	bulkId: string,
	handlers: BulkHandler[],
	options: { signal?: AbortSignal; db?: Kysely<DB> } = {},
) {
	const db = options.db ?? defaultDb
	const bulk = await db
		.selectFrom('bulk_actions')
		.selectAll()
		.where('id', '=', bulkId)
		.executeTakeFirst()
	if (!bulk || bulk.status === 'done' || bulk.status === 'failed') return
	const handler = handlers.find((h) => h.kind === bulk.kind)
	const action = handler?.actions[bulk.action]
	if (!handler || !action)
		return finish(db, bulkId, `Unknown bulk action ${bulk.kind}/${bulk.action}`)
	const user = bulk.created_by
		? await db
				.selectFrom('auth.users')
				.select(['id', 'email'])
				.where('id', '=', bulk.created_by)
				.executeTakeFirst()
		: undefined
	let account: AccountContext
	try {
		if (!user) throw new Error('gone')
		account = await loadAccountContext(db, { id: user.id, email: user.email ?? '' })
		handler.authorize(account)
		if (account.accountId !== bulk.user_id) throw new Error('moved')
	} catch (error) {
		if (isTransientDatabaseError(error)) throw error
		return finish(db, bulkId, 'Stopped: the person who started it may no longer do this.')
	}
	await db
		.updateTable('bulk_actions')
		.set({ status: 'running', updated_at: new Date() })
		.where('id', '=', bulkId)
		.execute()
	const params = bulk.params as Record<string, string>
	const tally: Tally = {
		done: bulk.done,
		skipped: bulk.skipped,
		failed: bulk.failed,
		notes: bulk.notes as BulkNote[],
	}
	let lastId = bulk.last_id
	const ids = bulk.ids ? [...bulk.ids].sort() : null
	for (;;) {
		options.signal?.throwIfAborted()
		let batch: { id: string; row: BulkRow | null }[]
		if (ids) {
			const next = ids
				.filter((id) => lastId === null || id > lastId)
				.slice(0, handler.batchSize ?? BATCH)
			const mine = new Map((await handler.owned(account, next)).map((r) => [r.id, r]))
			batch = next.map((id) => ({ id, row: mine.get(id) ?? null }))
		} else {
			const rows = await handler.matching(
				account,
				bulk.filter as BulkFilter,
				lastId,
				handler.batchSize ?? BATCH,
			)
			batch = rows.map((row) => ({ id: row.id, row }))
		}
		if (batch.length === 0) break
		if (action.runBatch) {
			// a set operation over the batch's rows (decision 0089): one statement, then one checkpoint
			options.signal?.throwIfAborted()
			const owned = batch.flatMap(({ row }) => (row ? [row] : []))
			const outcomes = owned.length ? await action.runBatch(account, owned, params) : new Map()
			for (const { id, row } of batch) {
				const outcome: BulkOutcome | undefined = row ? outcomes.get(id) : undefined
				const note: 'done' | BulkNote =
					outcome === 'done'
						? 'done'
						: {
								outcome: 'skipped',
								reason: outcome?.skipped ?? NOT_YOURS,
								name: row?.name ?? id,
							}
				tallyOne(tally, note)
			}
			lastId = batch.at(-1)!.id
			await checkpoint(db, bulkId, tally, lastId)
			continue
		}
		for (const { id, row } of batch) {
			options.signal?.throwIfAborted()
			const note = row
				? await runOne(action.run, account, row, params)
				: { outcome: 'skipped' as const, reason: NOT_YOURS, name: id }
			tallyOne(tally, note)
			lastId = id
			await checkpoint(db, bulkId, tally, id)
		}
	}
	await finish(db, bulkId, null)
}

function tallyOne(tally: Tally, note: 'done' | BulkNote) {
	if (note === 'done') tally.done++
	else {
		tally[note.outcome]++
		if (tally.notes.length < MAX_NOTES) tally.notes.push(note)
	}
}

async function checkpoint(db: Kysely<DB>, bulkId: string, tally: Tally, lastId: string) {
	await db
		.updateTable('bulk_actions')
		.set({
			done: tally.done,
			skipped: tally.skipped,
			failed: tally.failed,
			notes: JSON.stringify(tally.notes),
			last_id: lastId,
			updated_at: new Date(),
		})
		.where('id', '=', bulkId)
		.execute()
}

async function runOne(
	run: BulkHandler['actions'][string]['run'],
	account: AccountContext,
	row: BulkRow,
	params: Record<string, string>,
): Promise<'done' | BulkNote> {
	try {
		const outcome = await run(account, row, params)
		return outcome === 'done'
			? 'done'
			: { name: row.name, reason: outcome.skipped, outcome: 'skipped' }
	} catch (error) {
		// a database or worker hiccup: the job goes back to the queue and resumes at this row
		if (isTransientDatabaseError(error)) throw error
		// a refusal with its reason (FormError), or a thrown 403/404: the row is left as it is
		if (error instanceof FormError)
			return { name: row.name, reason: error.message, outcome: 'skipped' }
		if (statusOf(error) !== undefined) {
			const message = (error as { data?: unknown }).data
			return {
				name: row.name,
				reason: typeof message === 'string' ? message : NOT_YOURS,
				outcome: 'skipped',
			}
		}
		logger.error({ err: error, row: row.id }, 'bulk action row failed')
		return { name: row.name, reason: 'an unexpected error; try it again', outcome: 'failed' }
	}
}

async function finish(db: Kysely<DB>, bulkId: string, error: string | null) {
	await db
		.updateTable('bulk_actions')
		.set({
			status: error ? 'failed' : 'done',
			error,
			finished_at: new Date(),
			updated_at: new Date(),
		})
		.where('id', '=', bulkId)
		.where('status', 'in', ['queued', 'running'])
		.execute()
}

/** The sweep's status rows whose job pg-boss will not run again (decision 0062). */
export async function unfinishedBulkActions(quietSeconds: number) {
	const rows = await defaultDb
		.selectFrom('bulk_actions as b')
		.select('b.id')
		.where('b.status', 'in', ['queued', 'running'])
		.where(quietFor('b.updated_at', quietSeconds))
		.where(withoutLiveJob('bulk-action', sql`jsonb_build_object('bulkId', b.id)`))
		.execute()
	return rows.map((r) => ({ bulkId: r.id }))
}

/** Ends a bulk action whose job is gone as failed, its counts as far as it got. */
export async function settleEndedBulkAction(bulkId: string) {
	return defaultDb.transaction().execute(async (trx) => {
		const locked = await trx
			.selectFrom('bulk_actions')
			.select('status')
			.where('id', '=', bulkId)
			.forUpdate()
			.executeTakeFirst()
		if (locked?.status !== 'queued' && locked?.status !== 'running') return false
		const job = await endedJob(trx, 'bulk-action', { bulkId })
		if (!job) return false
		await finish(trx, bulkId, `Stopped. ${whyEnded(job)} The rows counted as done are done.`)
		return true
	})
}

/**
 * A selection kept for a download (decision 0089): an export streams in the answer, so it is no
 * job; the form's ticked ids (too many for a URL) or its filter are kept as a finished status
 * row, and the download's URL names that row. Ids are checked by the download, as by a job.
 */
export async function recordSelection(
	account: AccountContext | null,
	handler: BulkHandler,
	selection: BulkSelection,
	db: Kysely<DB> = defaultDb,
) {
	handler.authorize(account)
	const acting = actingAccount(account)
	const ids = 'ids' in selection ? [...new Set(selection.ids.map((id) => id.toLowerCase()))] : null
	if (ids && ids.length === 0) throw new FormError('Select at least one row.', 'ids')
	if (ids && ids.length > MAX_FORM_IDS)
		throw new FormError(`Select at most ${MAX_FORM_IDS} rows, or all matching the filter.`, 'ids')
	const row = await db
		.insertInto('bulk_actions')
		.values({
			user_id: acting.accountId,
			created_by: acting.user.id,
			kind: handler.kind,
			action: 'export',
			ids,
			filter: 'filter' in selection ? JSON.stringify(selection.filter) : null,
			total: ids?.length ?? 0,
			status: 'done',
			finished_at: new Date(),
		})
		.returning('id')
		.executeTakeFirstOrThrow()
	return row.id
}

/** A selection kept by recordSelection, of the account and of this kind of rows; else 404. */
export async function readSelection(
	account: AccountContext | null,
	kind: string,
	id: unknown,
	db: Kysely<DB> = defaultDb,
): Promise<BulkSelection> {
	const acting = actingAccount(account)
	if (!isUuid(id)) notFound('This selection')
	const row = await db
		.selectFrom('bulk_actions')
		.select(['ids', 'filter'])
		.where('id', '=', id)
		.where('user_id', '=', acting.accountId)
		.where('kind', '=', kind)
		.where('action', '=', 'export')
		.executeTakeFirst()
	if (!row) notFound('This selection')
	return row.ids ? { ids: row.ids } : { filter: (row.filter ?? {}) as BulkFilter }
}
