import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { createApifyClient } from '../../integrations/apify.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import {
	companyScrapeReference,
	settleCompanyCancel,
} from '../companies/run-company-scrape.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { InsufficientCreditsError, reserveCredits } from '../billing/credits.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { LIST_KINDS, type ListKind } from '../lists/list-kinds.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { lockListForDelete, lockListForStart } from '../lists/list-lock.server.ts'
import { deleteLeadList } from '../lists/manage-list.server.ts'
import { actingAccount, canUseWorkspace, type ActingAccount } from '../workspaces/access.server.ts'
import { JobStatus, leadScrapeReference, settleCredits } from './run-lead-scrape.server.ts'
import type { TableSort } from '../../utils/table-sort.ts'

export type { ListKind }

export type ScrapeListRow = {
	id: string
	kind: ListKind
	name: string
	source: string
	status: number
	requested: number
	found: number
	progress: number
	error: string | null
	createdAt: string
	workspaceId: string | null
}

/** The orders /scrape's table offers (decision 0089), by column key. */
export const SCRAPE_SORTS = ['name', 'status', 'requested', 'found', 'created'] as const
export type ScrapeSort = TableSort<(typeof SCRAPE_SORTS)[number]>
const SORT_COLUMNS = {
	name: 'name',
	status: 'status',
	requested: 'requested',
	found: 'found',
	created: 'created_at',
} as const

/**
 * Every lead and company list of the workspace (and, for those who see all, the unassigned
 * ones), newest first unless a sort is given; `q` keeps the names containing it.
 */
export async function listScrapeLists(
	context: AccountContext | null,
	workspaceId: string | null,
	options: { q?: string; sort?: ScrapeSort } = {},
): Promise<ScrapeListRow[]> {
	const account = actingAccount(context)
	const inScope = (column: 'workspace_id') =>
		sql<boolean>`(${sql.ref(column)} is not distinct from ${workspaceId}${account.accessAllWorkspaces ? sql` or ${sql.ref(column)} is null` : sql``})`
	const listsOf = <T extends 'processing_list' | 'company_scraping_list'>(
		table: T,
		kind: ListKind,
	) =>
		db
			.selectFrom(table as 'processing_list')
			.select([
				'id',
				sql<ListKind>`${kind}::text`.as('kind'),
				'name',
				'source_type as source',
				'status',
				'requested',
				'found',
				'progress',
				'error',
				'created_at',
				'workspace_id',
			])
			.where('user_id', '=', account.accountId)
			.where(inScope('workspace_id'))
			.$if(Boolean(options.q), (q) =>
				q.where('name', 'ilike', `%${options.q!.replace(/[\\%_]/g, (c) => `\\${c}`)}%`),
			)
	const sort = options.sort ?? { sort: 'created', dir: 'desc' }
	const leads = listsOf(LIST_KINDS.leads.listTable, 'leads')
	const companies = listsOf(LIST_KINDS.companies.listTable, 'companies')
	const rows = await leads
		.unionAll(companies)
		.orderBy(sql.ref(SORT_COLUMNS[sort.sort]), sort.dir)
		.orderBy('created_at', 'desc')
		.limit(500)
		.execute()
	return rows.map((r) => ({
		id: r.id,
		kind: r.kind,
		name: r.name,
		source: r.source,
		status: r.status,
		requested: r.requested,
		found: r.found,
		progress: r.progress,
		error: r.error,
		createdAt: r.created_at.toISOString(),
		workspaceId: r.workspace_id,
	}))
}

/** The list, when it is the account's and in a workspace the user may use; else 404. */
async function findList(account: ActingAccount, kind: ListKind, id: string, executor = db) {
	if (!isUuid(id)) notFound('This list')
	const list = await executor
		.selectFrom(LIST_KINDS[kind].listTable)
		.select([
			'id',
			'name',
			'status',
			'workspace_id',
			'found',
			'source_type',
			'requested',
			'progress',
			'error',
			'created_at',
			'finished_at',
		])
		.where('id', '=', id)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!list || !canUseWorkspace(account, list.workspace_id)) notFound('This list')
	return list
}

/**
 * A scrape as its status shows it (the API's `GET /lead-scrapes/{id}`): the list, and what it
 * holds or paid (the search's request for a lead list, the list itself for a company list).
 * A list that was not scraped (an upload) is no scrape: 404.
 */
export async function findScrape(
	context: AccountContext | null,
	kind: ListKind,
	id: string,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const list = await findList(account, kind, id, executor)
	if (kind === 'leads' && list.source_type !== 'apollo') notFound('This scrape')
	const request = await requestOf(kind, list.id, executor)
	const company =
		kind === 'companies'
			? await executor
					.selectFrom('company_scraping_list')
					.select(['credits_reserved', 'key_kind'])
					.where('id', '=', list.id)
					.executeTakeFirstOrThrow()
			: null
	return {
		...list,
		creditsReserved: company?.credits_reserved ?? request?.credits_reserved ?? 0,
		payWith: company?.key_kind ?? request?.key_kind ?? null,
	}
}

function requestOf(kind: ListKind, listId: string, trx: Kysely<DB> = db) {
	return trx
		.selectFrom('apollo_requests')
		.selectAll()
		.where(kind === 'leads' ? 'list_id' : 'company_list_id', '=', listId)
		.orderBy('created_at', 'desc')
		.executeTakeFirst()
}

/**
 * Stops a pending or running scrape at once. Under the list's row lock (the job writes each
 * page under the same lock and checks the status first) the list ends as cancelled, once, and
 * the credits are settled: the rows already written are kept and charged, the rest comes back.
 * So the list, its status and the ledger agree, whatever the job does next (decision 0028).
 */
export async function cancelScrape(context: AccountContext | null, kind: ListKind, id: string) {
	const account = actingAccount(context)
	const list = await findList(account, kind, id)
	if (list.status !== JobStatus.pending && list.status !== JobStatus.processing) {
		throw new FormError('Only a list that is still running can be cancelled.')
	}
	await stopScrape(kind, list.id)
	return list
}

/** Cancels the list's scrape if it is still running (its credits settled, its Apify run aborted). */
async function stopScrape(kind: ListKind, listId: string) {
	const run = await db.transaction().execute(async (trx) => {
		const locked = await trx
			.selectFrom(LIST_KINDS[kind].listTable)
			.select(['id', 'status'])
			.where('id', '=', listId)
			.forUpdate()
			.executeTakeFirst()
		if (!locked || !isRunningStatus(locked.status)) return null
		const cancelled = await trx
			.updateTable(LIST_KINDS[kind].listTable)
			.set({
				status: JobStatus.fail,
				error: 'Cancelled',
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', listId)
			.where('status', 'in', [JobStatus.pending, JobStatus.processing])
			.returning('found')
			.executeTakeFirstOrThrow()
		const request = await requestOf(kind, listId, trx)
		if (request) {
			await trx
				.updateTable('apollo_requests')
				.set({ status: JobStatus.fail, error: 'Cancelled' })
				.where('id', '=', request.id)
				.execute()
			await settleCredits(request, cancelled.found, trx)
			return request.run_id ? request : null
		}
		if (kind === 'companies') await settleCompanyCancel(listId, cancelled.found, trx)
		return null
	})
	if (run) await abortRun(run.user_id, run.key_kind, run.run_id!)
}

const isRunningStatus = (status: number) =>
	status === JobStatus.pending || status === JobStatus.processing

async function abortRun(accountId: string, keyKind: string, runId: string) {
	const config = getConfig()
	const token =
		keyKind === 'apifyKey' ? (await getProviderKey(accountId, 'apify'))?.key : config.APIFY_TOKEN
	if (!token) return
	await createApifyClient({ baseUrl: config.APIFY_BASE_URL, token })
		.abortRun(runId)
		.catch((error) => logger.warn({ err: error, runId }, 'could not abort the Apify run'))
}

/**
 * Runs a failed or cancelled scrape again: a search starts a new Apify run (leads
 * already found stay; duplicates are skipped), domains go on from where they stopped.
 */
export async function retryScrape(
	context: AccountContext | null,
	kind: ListKind,
	id: string,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const list = await findList(account, kind, id)
	if (list.status !== JobStatus.fail)
		throw new FormError('Only a failed or cancelled list can be retried.')
	const request = await requestOf(kind, list.id)
	try {
		await inTransaction(executor, async (trx) => {
			// a delete waits for this retry (and then sees the list running), or went first: 404
			await lockListForStart(trx, kind, list.id)
			// only a list still failed: a retry sent twice at once runs it once
			const claimed = await trx
				.updateTable(LIST_KINDS[kind].listTable)
				.set({ status: JobStatus.pending, error: null, finished_at: null, updated_at: sql`now()` })
				.where('id', '=', list.id)
				.where('status', '=', JobStatus.fail)
				.returning('id')
				.executeTakeFirst()
			if (!claimed) throw new FormError('This list is already running again.')
			if (request) {
				const attempt = request.attempt + 1
				await trx
					.updateTable('apollo_requests')
					.set({
						attempt,
						status: JobStatus.pending,
						error: null,
						run_id: null,
						start_requested_at: null,
						dataset_id: null,
						items_read: 0,
						found_before: list.found,
					})
					.where('id', '=', request.id)
					.execute()
				await trx
					.updateTable(LIST_KINDS[kind].listTable)
					.set({ progress: 0 })
					.where('id', '=', list.id)
					.execute()
				if (request.credits_reserved > 0) {
					await reserveCredits(trx, {
						accountId: account.accountId,
						amount: request.credits_reserved,
						reference: leadScrapeReference(request.id, attempt),
						subject: kind === 'companies' ? { companyListId: list.id } : { listId: list.id },
					})
				}
				await enqueue(
					'lead-scrape',
					{ requestId: request.id },
					{ db: trx, singletonKey: `${request.id}:${attempt}` },
				)
				return
			}
			if (kind !== 'companies') throw new FormError('This list has no search to run again.')
			const domains = await trx
				.updateTable('company_scraping_list')
				.set({ attempt: sql`attempt + 1`, found_before: sql`found` })
				.where('id', '=', list.id)
				.returning(['attempt', 'credits_reserved', 'requested', 'items_read'])
				.executeTakeFirstOrThrow()
			const left = domains.requested - domains.items_read
			const amount = Math.round((domains.credits_reserved / Math.max(domains.requested, 1)) * left)
			if (amount > 0) {
				await trx
					.updateTable('company_scraping_list')
					.set({ credits_reserved: amount })
					.where('id', '=', list.id)
					.execute()
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount,
					reference: companyScrapeReference(list.id, domains.attempt),
					subject: { companyListId: list.id },
				})
			}
			await enqueue(
				'company-scrape',
				{ listId: list.id },
				{ db: trx, singletonKey: `${list.id}:${domains.attempt}` },
			)
		})
	} catch (error) {
		if (error instanceof InsufficientCreditsError)
			throw new FormError(`${error.message} Buy credits to retry.`)
		throw error
	}
	return list
}

/**
 * Deletes a list and its rows; a running one is cancelled first, so its credits come back. A list
 * an enrichment or an upload is using is refused (`refuseDeleteWhileInUse`, bulk delete's rule too),
 * checked and deleted under the list's row lock that every run's start takes (decision 0107).
 */
export async function deleteScrapeList(context: AccountContext | null, kind: ListKind, id: string) {
	const account = actingAccount(context)
	const list = await findList(account, kind, id)
	// an uploaded list also takes its stored file (and stops its import)
	if (kind === 'leads' && list.source_type === 'upload') return deleteLeadList(account, id)
	// a scrape still filling the list is cancelled first (its Apify run aborted, outside the
	// lock), then the list deleted once it is seen stopped under the lock; a retry started in
	// between is refused rather than deleted under its new run
	for (let attempt = 0; ; attempt++) {
		const deleted = await db.transaction().execute(async (trx) => {
			const locked = await lockListForDelete(trx, kind, list.id)
			if (!locked) return true
			if (isRunningStatus(locked.status)) return false
			await trx
				.deleteFrom(LIST_KINDS[kind].listTable)
				.where('id', '=', list.id)
				.where('user_id', '=', account.accountId)
				.execute()
			return true
		})
		if (deleted) return list
		if (attempt > 0)
			throw new FormError('This list started again meanwhile; delete it again to cancel it.')
		await stopScrape(kind, list.id)
	}
}
