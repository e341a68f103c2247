import { sql, type Kysely, type Transaction } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import {
	ApifyError,
	createApifyClient,
	isFinished,
	runFailure,
	type ApifyClient,
} from '../../integrations/apify.server.ts'
import { MalformedAnswerError } from '../../integrations/http.server.ts'
import { retryLater, type JobContext } from '../../jobs/define.server.ts'
import { endedJob, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { patiently } from '../../utils/patience.server.ts'
import { commitCredits, releaseCredits } from '../billing/credits.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { mapApolloPerson, type LeadFields } from './map-apollo-person.ts'
import { mapApolloOrganization, type CompanyFields } from '../companies/map-apollo-organization.ts'

export const leadScrapeReference = (requestId: string, attempt: number) =>
	`lead-scrape:${requestId}:${attempt}`

export const PAGE_SIZE = 1000
export const JOB_RETRY_LIMIT = 4

export const JobStatus = { pending: 0, processing: 1, success: 2, fail: 3 } as const

export type ListKind = 'leads' | 'companies'

const LIST_TABLE = { leads: 'processing_list', companies: 'company_scraping_list' } as const

type Request = {
	id: string
	kind: ListKind
	user_id: string
	list_id: string
	url: string
	requested_count: number
	key_kind: string
	actor_id: string | null
	run_id: string | null
	start_requested_at: Date | null
	dataset_id: string | null
	items_read: number
	credits_reserved: number
	attempt: number
	found_before: number
	workspace_id: string | null
	list_status: number
	found: number
}

async function loadRequest(
	requestId: string,
	executor: Kysely<DB> = db,
): Promise<Request | undefined> {
	const request = await executor
		.selectFrom('apollo_requests')
		.select([
			'id',
			'user_id',
			'list_id',
			'company_list_id',
			'url',
			'requested_count',
			'key_kind',
			'actor_id',
			'run_id',
			'start_requested_at',
			'dataset_id',
			'items_read',
			'credits_reserved',
			'attempt',
			'found_before',
		])
		.where('id', '=', requestId)
		.executeTakeFirst()
	if (!request) return undefined
	const kind: ListKind = request.list_id ? 'leads' : 'companies'
	const listId = (request.list_id ?? request.company_list_id)!
	const list = await executor
		.selectFrom(LIST_TABLE[kind])
		.select(['workspace_id', 'status', 'found'])
		.where('id', '=', listId)
		.executeTakeFirst()
	if (!list) return undefined
	const { company_list_id: _, ...rest } = request
	return {
		...rest,
		kind,
		list_id: listId,
		workspace_id: list.workspace_id,
		list_status: list.status,
		found: list.found,
	}
}

/** The actor input from APIFY_APOLLO_INPUT with {{url}} and {{count}} filled in (both actors take it). */
export function actorInput(url: string, count: number) {
	const template = getConfig().APIFY_APOLLO_INPUT
	return JSON.parse(
		template.replace('"{{url}}"', JSON.stringify(url)).replace('{{count}}', String(count)),
	)
}

/** Apify's clock and ours may differ a little: a run this much earlier still counts. */
const CLOCK_SKEW_MS = 60_000

/**
 * The search's Apify run, started once per attempt: before starting, the request is marked
 * (committed); a job that finds the mark (its worker died after asking Apify, or the answer
 * was lost) looks for a run of the actor started since with the same input and not taken
 * by another request, and adopts it instead of starting a second one.
 */
async function findOrStartRun(apify: ApifyClient, request: Request) {
	const actor = request.actor_id ?? getConfig().APIFY_APOLLO_ACTOR
	const input = actorInput(request.url, request.requested_count)
	const { start_requested_at: since } = await db
		.selectFrom('apollo_requests')
		.select('start_requested_at')
		.where('id', '=', request.id)
		.executeTakeFirstOrThrow()
	if (since) {
		const wanted = JSON.stringify(input)
		for (const run of await apify.listRuns(actor)) {
			if (!run.startedAt || Date.parse(run.startedAt) < since.getTime() - CLOCK_SKEW_MS) continue
			// a run that ended badly belongs to an earlier attempt
			if (!['READY', 'RUNNING', 'SUCCEEDED'].includes(run.status)) continue
			if (JSON.stringify(await apify.runInput(run)) !== wanted) continue
			const taken = await db
				.selectFrom('apollo_requests')
				.select('id')
				.where('run_id', '=', run.id)
				.where('id', '<>', request.id)
				.executeTakeFirst()
			if (!taken) return run
		}
	}
	await db
		.updateTable('apollo_requests')
		.set({ start_requested_at: sql`now()` })
		.where('id', '=', request.id)
		.execute()
	return apify.startRun(actor, input)
}

async function apifyFor(request: Request): Promise<ApifyClient> {
	const config = getConfig()
	if (request.key_kind === 'apifyKey') {
		const own = await getProviderKey(request.user_id, 'apify')
		if (!own)
			throw new ApifyError(
				'token',
				'Your Apify API key was removed. Add it again on the API keys page.',
			)
		return createApifyClient({
			baseUrl: config.APIFY_BASE_URL,
			token: own.key,
			capacityRetrySeconds: config.APIFY_CAPACITY_RETRY_SECONDS,
		})
	}
	if (!config.APIFY_TOKEN)
		throw new ApifyError('token', 'The platform has no Apify token configured.')
	return createApifyClient({
		baseUrl: config.APIFY_BASE_URL,
		token: config.APIFY_TOKEN,
		capacityRetrySeconds: config.APIFY_CAPACITY_RETRY_SECONDS,
	})
}

async function stillRunning(kind: ListKind, listId: string) {
	const row = await db
		.selectFrom(LIST_TABLE[kind])
		.select('status')
		.where('id', '=', listId)
		.executeTakeFirst()
	return row?.status === JobStatus.processing
}

async function insertRows(trx: Transaction<DB>, request: Request, items: unknown[]) {
	const owner = {
		list_id: request.list_id,
		user_id: request.user_id,
		workspace_id: request.workspace_id,
	}
	if (request.kind === 'leads') {
		const leads = items.map(mapApolloPerson).filter((lead): lead is LeadFields => lead !== null)
		if (leads.length === 0) return 0
		const rows = await trx
			.insertInto('leads')
			.values(leads.map((lead) => ({ ...lead, ...owner, data: JSON.stringify(lead.data) })))
			.onConflict((oc) => oc.doNothing())
			.returning('id')
			.execute()
		return rows.length
	}
	const companies = items
		.map((item) => mapApolloOrganization(item))
		.filter((company): company is CompanyFields => company !== null)
	if (companies.length === 0) return 0
	const rows = await trx
		.insertInto('companies')
		.values(
			companies.map((company) => ({ ...company, ...owner, data: JSON.stringify(company.data) })),
		)
		.onConflict((oc) => oc.doNothing())
		.returning('id')
		.execute()
	return rows.length
}

/**
 * Writes one page and the checkpoint together: a re-run resumes after it, losing and duplicating
 * nothing. The list row is locked and still running first, else nothing is written (false): a
 * cancel settles the credits under the same lock, so it charges exactly the rows that exist.
 */
async function savePage(request: Request, items: unknown[], itemsRead: number) {
	return db.transaction().execute(async (trx) => {
		const list = await trx
			.selectFrom(LIST_TABLE[request.kind])
			.select('status')
			.where('id', '=', request.list_id)
			.forUpdate()
			.executeTakeFirst()
		if (list?.status !== JobStatus.processing) return false
		const inserted = await insertRows(trx, request, items)
		await trx
			.updateTable('apollo_requests')
			.set({ items_read: itemsRead, updated_at: sql`now()` })
			.where('id', '=', request.id)
			.execute()
		await trx
			.updateTable(LIST_TABLE[request.kind])
			.set({
				found: sql`found + ${inserted}`,
				progress: sql`least(99, greatest(progress, ${Math.floor((itemsRead / Math.max(request.requested_count, 1)) * 100)}))`,
				updated_at: sql`now()`,
			})
			.where('id', '=', request.list_id)
			.execute()
		return true
	})
}

/**
 * Ends the list and settles its credits in one transaction: whoever sees the status sees the
 * balance. A failed list keeps the rows it wrote and pays for them like a cancelled one
 * (decision 0063); its reason says so, and that the rest of the hold came back.
 */
async function finish(
	request: Request,
	outcome: { ok: true } | { ok: false; error: string },
	executor: Kysely<DB> = db,
) {
	await inTransaction(executor, async (trx) => {
		const list = await trx
			.selectFrom(LIST_TABLE[request.kind])
			.select('found')
			.where('id', '=', request.list_id)
			.where('status', 'in', [JobStatus.pending, JobStatus.processing])
			.forUpdate()
			.executeTakeFirst()
		// already ended (cancelled, or another run of this job finished first)
		if (!list) return
		const settled = await settleCredits(request, list.found, trx)
		const error = outcome.ok ? null : `${outcome.error} ${keptNote(request, list.found, settled)}`
		await trx
			.updateTable(LIST_TABLE[request.kind])
			.set({
				status: outcome.ok ? JobStatus.success : JobStatus.fail,
				error,
				progress: outcome.ok ? 100 : sql`progress`,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', request.list_id)
			.execute()
		await trx
			.updateTable('apollo_requests')
			.set({ status: outcome.ok ? JobStatus.success : JobStatus.fail, error })
			.where('id', '=', request.id)
			.execute()
	})
}

/** What a failed list kept and paid, in its reason (decision 0063). */
function keptNote(
	request: Pick<Request, 'kind' | 'found_before' | 'credits_reserved'>,
	found: number,
	settled: { used: number; refunded: number } | undefined,
) {
	const kept = Math.max(0, found - request.found_before)
	const count = kept.toLocaleString('en')
	const rows =
		request.kind === 'leads'
			? `${count} lead${kept === 1 ? '' : 's'}`
			: `${count} compan${kept === 1 ? 'y' : 'ies'}`
	const parts: string[] = []
	if (kept > 0)
		parts.push(
			settled && settled.used > 0
				? `The ${rows} found before it stopped are kept and charged (${settled.used.toLocaleString('en')} credits).`
				: `The ${rows} found before it stopped are kept.`,
		)
	if (settled && settled.refunded > 0)
		parts.push(`${settled.refunded.toLocaleString('en')} unused credits were refunded.`)
	parts.push(kept > 0 ? 'Retry the list to find the rest.' : 'Retry the list to try again.')
	return parts.join(' ')
}

/**
 * Credits for the leads this attempt added (kept on a failure or a cancel too, decision 0063);
 * the unused part goes back. `found` null: nothing is charged.
 */
export async function settleCredits(
	request: Pick<
		Request,
		'id' | 'user_id' | 'credits_reserved' | 'attempt' | 'found_before' | 'requested_count'
	>,
	found: number | null,
	trx: Kysely<DB> = db,
): Promise<{ used: number; refunded: number } | undefined> {
	if (request.credits_reserved <= 0) return
	const reference = leadScrapeReference(request.id, request.attempt)
	if (found === null) {
		const { refunded } = await releaseCredits(trx, { accountId: request.user_id, reference })
		return { used: 0, refunded }
	}
	const price = request.credits_reserved / request.requested_count
	const newLeads = Math.max(0, Math.min(found - request.found_before, request.requested_count))
	const used = Math.round(newLeads * price)
	const { refunded } = await commitCredits(trx, { accountId: request.user_id, reference, used })
	return { used, refunded }
}

/** Requests whose list is still pending or running while no job of theirs is queued or running. */
export async function unfinishedLeadScrapes(quietSeconds: number) {
	const rows = await db
		.selectFrom('apollo_requests as r')
		.leftJoin('processing_list as l', 'l.id', 'r.list_id')
		.leftJoin('company_scraping_list as c', 'c.id', 'r.company_list_id')
		.select('r.id')
		.where((eb) =>
			eb.or([
				eb('l.status', 'in', [JobStatus.pending, JobStatus.processing]),
				eb('c.status', 'in', [JobStatus.pending, JobStatus.processing]),
			]),
		)
		.where(
			sql<boolean>`coalesce(l.updated_at, c.updated_at) <= now() - ${quietSeconds} * interval '1 second'`,
		)
		.where(withoutLiveJob('lead-scrape', sql`jsonb_build_object('requestId', r.id)`))
		.execute()
	return rows.map((r) => ({ requestId: r.id }))
}

/**
 * The sweep's end of a search whose job pg-boss will not run again: under the list's lock, and
 * only when still no job of it is queued or running, the list fails with the reason and its
 * credits are settled as for any failure (decision 0062). True when it ended the list.
 */
export async function settleEndedLeadScrape(requestId: string) {
	return db.transaction().execute(async (trx) => {
		const request = await loadRequest(requestId, trx)
		if (!request) return false
		const locked = await trx
			.selectFrom(LIST_TABLE[request.kind])
			.select('status')
			.where('id', '=', request.list_id)
			.forUpdate()
			.executeTakeFirst()
		if (locked?.status !== JobStatus.pending && locked?.status !== JobStatus.processing)
			return false
		const ended = await endedJob(trx, 'lead-scrape', { requestId })
		if (!ended) return false
		// read again under the lock: a retry may have moved the attempt on since
		const current = (await loadRequest(requestId, trx))!
		await finish(current, { ok: false, error: `The search stopped. ${whyEnded(ended)}` }, trx)
		return true
	})
}

/** An Apify failure that ends the list: said as final, never "we will try again". */
function finalApifyMessage(error: ApifyError) {
	if (error.kind === 'rate-limited')
		return 'Apify kept rate limiting the search, so it stopped after several tries.'
	if (error.kind === 'unavailable')
		// a malformed answer says what was wrong; the others only promised another try
		return error.cause instanceof MalformedAnswerError
			? `${error.message} The search stopped after several tries.`
			: 'Apify could not be reached or kept failing, so the search stopped after several tries.'
	return error.message
}

/**
 * The lead-scrape job (and company searches): runs the Apify actor for the
 * request, pages through its dataset, maps and dedupes leads or companies, and
 * ends the list in success with counts or fail with a reason. Resumes from its
 * checkpoint (run id, items read).
 */
export async function runLeadScrape(requestId: string, job: JobContext) {
	let request = await loadRequest(requestId)
	if (
		!request ||
		request.list_status === JobStatus.success ||
		request.list_status === JobStatus.fail
	)
		return
	await db
		.updateTable(LIST_TABLE[request.kind])
		.set({
			status: JobStatus.processing,
			started_at: sql`coalesce(started_at, now())`,
			updated_at: sql`now()`,
		})
		.where('id', '=', request.list_id)
		.where('status', '=', JobStatus.pending)
		.execute()
	try {
		const apify = await apifyFor(request)
		if (!request.run_id) {
			const run = await patiently(() => findOrStartRun(apify, request!), job.signal)
			await db
				.updateTable('apollo_requests')
				.set({ run_id: run.id, dataset_id: run.defaultDatasetId, status: JobStatus.processing })
				.where('id', '=', request.id)
				.execute()
			request = { ...request, run_id: run.id, dataset_id: run.defaultDatasetId }
		}
		let run = await patiently(() => apify.getRun(request!.run_id!, 60), job.signal)
		while (!isFinished(run)) {
			if (job.signal.aborted) throw new Error('worker stopping')
			if (!(await stillRunning(request.kind, request.list_id))) {
				await apify.abortRun(run.id).catch(() => {})
				return
			}
			run = await patiently(() => apify.getRun(run.id, 60), job.signal)
		}
		const failure = runFailure(run)
		if (failure) throw failure

		let offset = request.items_read
		for (;;) {
			if (job.signal.aborted) throw new Error('worker stopping')
			if (!(await stillRunning(request.kind, request.list_id))) return
			const page = await patiently(
				() => apify.datasetItems(run.defaultDatasetId, { offset, limit: PAGE_SIZE }),
				job.signal,
			)
			// by offset to the total: with clean=1 a short page does not mean the end
			offset = page.nextOffset
			if (!(await savePage(request, page.items, offset))) return
			if (offset >= page.total) break
		}
		await finish(request, { ok: true })
	} catch (error) {
		// the database restarting is no reason to fail (and refund): the retry resumes
		if (retryLater(error, job, JOB_RETRY_LIMIT, error instanceof ApifyError && error.retryable))
			throw error
		const message =
			error instanceof ApifyError
				? finalApifyMessage(error)
				: 'Something went wrong while scraping.'
		if (!(error instanceof ApifyError))
			logger.error({ err: error, requestId }, 'lead scrape failed')
		await finish(request, { ok: false, error: message })
	}
}
