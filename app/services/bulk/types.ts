import type { AccountContext } from '../../context.server.ts'

/**
 * What a kind of rows (domains, lists...) gives the bulk machinery (decision 0080). The handler
 * lives with its service (e.g. services/domains/bulk.server.ts) and reuses that service's
 * single-row operations; the bulk service knows no kind.
 */
export type BulkRow = { id: string; name: string }

/** A row the action did, or left alone with the reason the user reads. */
export type BulkOutcome = 'done' | { skipped: string }

export type BulkFilter = Record<string, string>

export type BulkHandler = {
	kind: string
	/** throws 403 when this user may not act on this kind at all */
	authorize: (account: AccountContext | null) => void
	/** which of these ids are rows of the account in a workspace the user may use */
	owned: (account: AccountContext, ids: string[]) => Promise<BulkRow[]>
	/** the rows matching the filter with an id after `afterId`, by id, at most `limit` */
	matching: (
		account: AccountContext,
		filter: BulkFilter,
		afterId: string | null,
		limit: number,
	) => Promise<BulkRow[]>
	count: (account: AccountContext, filter: BulkFilter) => Promise<number>
	/** rows per step of the job (100 unless said) */
	batchSize?: number
	/** each action: checks its params when the action is asked for, then runs per row */
	actions: Record<
		string,
		{
			label: string
			params?: (params: Record<string, string>, account: AccountContext) => Promise<void> | void
			run: (
				account: AccountContext,
				row: BulkRow,
				params: Record<string, string>,
			) => Promise<BulkOutcome>
			/**
			 * one set operation over a batch of owned rows (decision 0089), instead of `run` per
			 * row: each row's outcome by id (a row missing from the map is skipped as not found)
			 */
			runBatch?: (
				account: AccountContext,
				rows: BulkRow[],
				params: Record<string, string>,
			) => Promise<Map<string, BulkOutcome>>
		}
	>
}
