import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import {
	ApifyError,
	createApifyClient,
	isFinished,
	runFailure,
	type ApifyClient,
} from '../../integrations/apify.server.ts'
import type { JobContext } from '../../jobs/define.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { commitCredits, releaseCredits } from '../billing/credits.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { mapApolloPerson, type LeadFields } from './map-apollo-person.ts'

export const leadScrapeReference = (requestId: string, attempt: number) =>
	`lead-scrape:${requestId}:${attempt}`

export const PAGE_SIZE = 1000
export const JOB_RETRY_LIMIT = 4

export const JobStatus = { pending: 0, processing: 1, success: 2, fail: 3 } as const

type Request = {
	id: string
	user_id: string
	list_id: string
	url: string
	requested_count: number
	key_kind: string
	actor_id: string | null
	run_id: string | null
	dataset_id: string | null
	items_read: number
	credits_reserved: number
	attempt: number
	found_before: number
	workspace_id: string | null
	list_status: number
	found: number
}

async function loadRequest(requestId: string): Promise<Request | undefined> {
	return db
		.selectFrom('apollo_requests as r')
		.innerJoin('processing_list as l', 'l.id', 'r.list_id')
		.select([
			'r.id',
			'r.user_id',
			'r.url',
			'r.requested_count',
			'r.key_kind',
			'r.actor_id',
			'r.run_id',
			'r.dataset_id',
			'r.items_read',
			'r.credits_reserved',
			'r.attempt',
			'r.found_before',
			'l.id as list_id',
			'l.workspace_id',
			'l.status as list_status',
			'l.found',
		])
		.where('r.id', '=', requestId)
		.executeTakeFirst() as Promise<Request | undefined>
}

/** The actor input from APIFY_APOLLO_INPUT with {{url}} and {{count}} filled in. */
export function actorInput(url: string, count: number) {
	const template = getConfig().APIFY_APOLLO_INPUT
	return JSON.parse(
		template.replace('"{{url}}"', JSON.stringify(url)).replace('{{count}}', String(count)),
	)
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
		return createApifyClient({ baseUrl: config.APIFY_BASE_URL, token: own.key })
	}
	if (!config.APIFY_TOKEN)
		throw new ApifyError('token', 'The platform has no Apify token configured.')
	return createApifyClient({ baseUrl: config.APIFY_BASE_URL, token: config.APIFY_TOKEN })
}

const sleep = (ms: number, signal: AbortSignal) =>
	new Promise<void>((resolve) => {
		const timer = setTimeout(resolve, ms)
		signal.addEventListener('abort', () => {
			clearTimeout(timer)
			resolve()
		})
	})

/** Retries a rate-limited call in place, honouring Retry-After, before giving up to the job's retries. */
async function patiently<T>(call: () => Promise<T>, signal: AbortSignal, tries = 4): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await call()
		} catch (error) {
			if (
				!(error instanceof ApifyError) ||
				error.kind !== 'rate-limited' ||
				attempt >= tries ||
				signal.aborted
			)
				throw error
			await sleep((error.retryAfterSeconds ?? 2 ** attempt) * 1000, signal)
		}
	}
}

async function stillRunning(listId: string) {
	const row = await db
		.selectFrom('processing_list')
		.select('status')
		.where('id', '=', listId)
		.executeTakeFirst()
	return row?.status === JobStatus.processing
}

/** Writes one page of leads and the checkpoint together: a re-run resumes after it, losing and duplicating nothing. */
async function savePage(request: Request, leads: LeadFields[], itemsRead: number) {
	await db.transaction().execute(async (trx) => {
		let inserted = 0
		if (leads.length > 0) {
			const rows = await trx
				.insertInto('leads')
				.values(
					leads.map((lead) => ({
						...lead,
						data: JSON.stringify(lead.data),
						list_id: request.list_id,
						user_id: request.user_id,
						workspace_id: request.workspace_id,
					})),
				)
				.onConflict((oc) => oc.doNothing())
				.returning('id')
				.execute()
			inserted = rows.length
		}
		await trx
			.updateTable('apollo_requests')
			.set({ items_read: itemsRead, updated_at: sql`now()` })
			.where('id', '=', request.id)
			.execute()
		await trx
			.updateTable('processing_list')
			.set({
				found: sql`found + ${inserted}`,
				progress: sql`least(99, greatest(progress, ${Math.floor((itemsRead / Math.max(request.requested_count, 1)) * 100)}))`,
				updated_at: sql`now()`,
			})
			.where('id', '=', request.list_id)
			.execute()
	})
}

async function finish(request: Request, outcome: { ok: true } | { ok: false; error: string }) {
	const list = await db
		.updateTable('processing_list')
		.set({
			status: outcome.ok ? JobStatus.success : JobStatus.fail,
			error: outcome.ok ? null : outcome.error,
			progress: outcome.ok ? 100 : sql`progress`,
			finished_at: sql`now()`,
			updated_at: sql`now()`,
		})
		.where('id', '=', request.list_id)
		.where('status', 'in', [JobStatus.pending, JobStatus.processing])
		.returning('found')
		.executeTakeFirst()
	await db
		.updateTable('apollo_requests')
		.set({
			status: outcome.ok ? JobStatus.success : JobStatus.fail,
			error: outcome.ok ? null : outcome.error,
		})
		.where('id', '=', request.id)
		.execute()
	await settleCredits(request, outcome.ok ? (list?.found ?? request.found) : null)
}

/** Credits for the leads this attempt found; the unused part (all of it on failure) goes back. */
export async function settleCredits(
	request: Pick<
		Request,
		'id' | 'user_id' | 'credits_reserved' | 'attempt' | 'found_before' | 'requested_count'
	>,
	found: number | null,
) {
	if (request.credits_reserved <= 0) return
	const reference = leadScrapeReference(request.id, request.attempt)
	if (found === null) {
		await releaseCredits(db, { accountId: request.user_id, reference })
		return
	}
	const price = request.credits_reserved / request.requested_count
	const newLeads = Math.max(0, Math.min(found - request.found_before, request.requested_count))
	await commitCredits(db, {
		accountId: request.user_id,
		reference,
		used: Math.round(newLeads * price),
	})
}

/**
 * The lead-scrape job: runs the Apify actor for the request, pages through its
 * dataset, maps and dedupes leads, and ends the list in success with counts or
 * fail with a reason. Resumes from its checkpoint (run id, items read).
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
		.updateTable('processing_list')
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
			const run = await patiently(
				() =>
					apify.startRun(
						request!.actor_id ?? getConfig().APIFY_APOLLO_ACTOR,
						actorInput(request!.url, request!.requested_count),
					),
				job.signal,
			)
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
			if (!(await stillRunning(request.list_id))) {
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
			if (!(await stillRunning(request.list_id))) return
			const page = await patiently(
				() => apify.datasetItems(run.defaultDatasetId, { offset, limit: PAGE_SIZE }),
				job.signal,
			)
			const leads = page.items
				.map(mapApolloPerson)
				.filter((lead): lead is LeadFields => lead !== null)
			offset += page.items.length
			await savePage(request, leads, offset)
			if (page.items.length < PAGE_SIZE || (page.total !== undefined && offset >= page.total)) break
		}
		await finish(request, { ok: true })
	} catch (error) {
		const retryable = (error instanceof ApifyError && error.retryable) || job.signal.aborted
		if (retryable && job.retryCount < JOB_RETRY_LIMIT) throw error
		const message =
			error instanceof ApifyError
				? error.message
				: 'Something went wrong while scraping. Try again.'
		if (!(error instanceof ApifyError))
			logger.error({ err: error, requestId }, 'lead scrape failed')
		await finish(request, { ok: false, error: message })
	}
}
