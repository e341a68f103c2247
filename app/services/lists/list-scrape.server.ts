import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { MalformedAnswerError } from '../../integrations/http.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'
import { countOf, LIST_KINDS, type ListKind } from './list-kinds.ts'

// What the scrapes that fill a list share, whichever the kind of list and the provider: the
// Apollo searches through Apify (leads/run-lead-scrape.server.ts) and the domain lookups
// through Apollo (companies/run-company-scrape.server.ts) start, check and end their list the
// same way, and say a final failure the same way (decision 0072).

export const JobStatus = { pending: 0, processing: 1, success: 2, fail: 3 } as const

/** What a scrape charged and gave back when it ended. */
export type Settled = { used: number; refunded: number } | undefined

/** A pending list is now being worked on (a retry finds it so already). */
export async function markListProcessing(kind: ListKind, listId: string) {
	await db
		.updateTable(LIST_KINDS[kind].listTable)
		.set({
			status: JobStatus.processing,
			started_at: sql`coalesce(started_at, now())`,
			updated_at: sql`now()`,
		})
		.where('id', '=', listId)
		.where('status', '=', JobStatus.pending)
		.execute()
}

/**
 * Whether the list is still running (not cancelled, not ended). With `forUpdate`, in a
 * transaction, its row stays locked: a cancel settles the credits under the same lock, so
 * what is written after this check is what the cancel charges.
 */
export async function listStillRunning(
	kind: ListKind,
	listId: string,
	executor: Kysely<DB> = db,
	forUpdate = false,
) {
	const row = await executor
		.selectFrom(LIST_KINDS[kind].listTable)
		.select('status')
		.where('id', '=', listId)
		.$if(forUpdate, (q) => q.forUpdate())
		.executeTakeFirst()
	return row?.status === JobStatus.processing
}

/**
 * Ends the list and settles its credits in one transaction: whoever sees the status sees the
 * balance. A failed list keeps the rows it wrote and pays for them like a cancelled one
 * (decision 0063); its reason says so, and that the rest of the hold came back. Nothing
 * happens to a list already ended (cancelled, or another run of the job finished first).
 */
export async function endList(
	list: { kind: ListKind; id: string; foundBefore: number },
	outcome: { ok: true } | { ok: false; error: string },
	how: {
		/** charges the rows found (the list's count now) and gives back the rest of the hold */
		settle: (found: number, trx: Kysely<DB>) => Promise<Settled>
		/** the last words of a failure: "Retry the list to find the rest." */
		retryRest: string
		/** what else ends with the list (the search request's status), in its transaction */
		also?: (trx: Kysely<DB>, error: string | null) => Promise<void>
	},
	executor: Kysely<DB> = db,
) {
	const table = LIST_KINDS[list.kind].listTable
	await inTransaction(executor, async (trx) => {
		const current = await trx
			.selectFrom(table)
			.select('found')
			.where('id', '=', list.id)
			.where('status', 'in', [JobStatus.pending, JobStatus.processing])
			.forUpdate()
			.executeTakeFirst()
		if (!current) return
		const settled = await how.settle(current.found, trx)
		const kept = Math.max(0, current.found - list.foundBefore)
		const error = outcome.ok
			? null
			: `${outcome.error} ${keptNote(list.kind, kept, settled, how.retryRest)}`
		await trx
			.updateTable(table)
			.set({
				status: outcome.ok ? JobStatus.success : JobStatus.fail,
				error,
				progress: outcome.ok ? 100 : sql`progress`,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', list.id)
			.execute()
		await how.also?.(trx, error)
		await notifyJobEnd(trx, {
			kind: `${list.kind === 'leads' ? 'lead' : 'company'}-scrape`,
			id: list.id,
		})
	})
}

/** What a failed list kept and paid, in its reason (decision 0063). */
function keptNote(kind: ListKind, kept: number, settled: Settled, retryRest: string) {
	const rows = countOf(kind, kept)
	const parts: string[] = []
	if (kept > 0)
		parts.push(
			settled && settled.used > 0
				? `The ${rows} found before it stopped are kept and charged (${settled.used.toLocaleString('en')} credits).`
				: `The ${rows} found before it stopped are kept.`,
		)
	if (settled && settled.refunded > 0)
		parts.push(`${settled.refunded.toLocaleString('en')} unused credits were refunded.`)
	parts.push(kept > 0 ? retryRest : 'Retry the list to try again.')
	return parts.join(' ')
}

/**
 * A provider's failure that ends the list, said as final, never "we will try again":
 * "Apify kept rate limiting the search, so it stopped after several tries."
 */
export function finalProviderMessage(
	error: { kind: string; message: string; cause?: unknown },
	words: {
		provider: 'Apify' | 'Apollo'
		/** "the search", "the lookups" */
		work: string
		/** "it", "they" */
		they: string
	},
) {
	const { provider, work, they } = words
	if (error.kind === 'rate-limited')
		return `${provider} kept rate limiting ${work}, so ${they} stopped after several tries.`
	if (error.kind === 'unavailable')
		// a malformed answer says what was wrong; the others only promised another try
		return error.cause instanceof MalformedAnswerError
			? `${error.message} ${work[0]!.toUpperCase()}${work.slice(1)} stopped after several tries.`
			: `${provider} could not be reached or kept failing, so ${work} stopped after several tries.`
	return error.message
}
