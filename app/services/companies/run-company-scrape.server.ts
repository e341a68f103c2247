import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import {
	ApolloError,
	createApolloClient,
	type ApolloOrganization,
} from '../../integrations/apollo.server.ts'
import { MalformedAnswerError } from '../../integrations/http.server.ts'
import { retryLater, type JobContext } from '../../jobs/define.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { patiently } from '../../utils/patience.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { commitCredits } from '../billing/credits.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { JobStatus } from '../leads/run-lead-scrape.server.ts'
import { mapApolloOrganization, type CompanyFields } from './map-apollo-organization.ts'

export const companyScrapeReference = (listId: string, attempt: number) =>
	`company-scrape:${listId}:${attempt}`

export const BATCH = 25
export const PARALLEL = 5
export const COMPANY_JOB_RETRY_LIMIT = 4

type List = {
	id: string
	user_id: string
	workspace_id: string | null
	status: number
	found: number
	requested: number
	input_domains: string[]
	items_read: number
	key_kind: string | null
	credits_reserved: number
	attempt: number
	found_before: number
}

async function apolloFor(list: List) {
	const config = getConfig()
	const key =
		list.key_kind === 'apolloKey'
			? (await getProviderKey(list.user_id, 'apollo'))?.key
			: config.APOLLO_API_KEY
	if (!key)
		throw new ApolloError(
			'key',
			'The Apollo API key was removed. Add it again on the API keys page.',
		)
	return createApolloClient({
		baseUrl: config.APOLLO_BASE_URL,
		apiKey: key,
		windowWaits: config.APOLLO_WINDOW_WAIT_SECONDS,
	})
}

/** Looks up `domains` a few at a time; unknown domains come back null. */
async function enrichBatch(
	apollo: ReturnType<typeof createApolloClient>,
	domains: string[],
	signal: AbortSignal,
): Promise<(ApolloOrganization | null)[]> {
	const results: (ApolloOrganization | null)[] = new Array(domains.length).fill(null)
	let next = 0
	await Promise.all(
		Array.from({ length: Math.min(PARALLEL, domains.length) }, async () => {
			while (next < domains.length) {
				const index = next++
				results[index] = await patiently(() => apollo.enrichOrganization(domains[index]!), signal)
			}
		}),
	)
	return results
}

/**
 * What this attempt found, at the price per company, never more than it held; the rest comes
 * back. A failed or cancelled list pays the same way for the companies it keeps (decision 0063).
 */
async function settle(
	list: Pick<List, 'id' | 'user_id' | 'credits_reserved' | 'attempt' | 'found_before'>,
	found: number,
	trx: typeof db,
) {
	if (list.credits_reserved <= 0) return
	const reference = companyScrapeReference(list.id, list.attempt)
	const used = Math.min(
		Math.max(found - list.found_before, 0) * getConfig().CREDITS_PER_COMPANY,
		list.credits_reserved,
	)
	const { refunded } = await commitCredits(trx, { accountId: list.user_id, reference, used })
	return { used, refunded }
}

/** What a failed list kept and paid, in its reason (decision 0063). */
function keptNote(
	list: Pick<List, 'found_before'>,
	found: number,
	settled: { used: number; refunded: number } | undefined,
) {
	const kept = Math.max(0, found - list.found_before)
	const rows = `${kept.toLocaleString('en')} compan${kept === 1 ? 'y' : 'ies'}`
	const parts: string[] = []
	if (kept > 0)
		parts.push(
			settled && settled.used > 0
				? `The ${rows} found before it stopped are kept and charged (${settled.used.toLocaleString('en')} credits).`
				: `The ${rows} found before it stopped are kept.`,
		)
	if (settled && settled.refunded > 0)
		parts.push(`${settled.refunded.toLocaleString('en')} unused credits were refunded.`)
	parts.push(kept > 0 ? 'Retry the list to look up the rest.' : 'Retry the list to try again.')
	return parts.join(' ')
}

/** A cancelled domain lookup: the companies written so far are charged, the rest comes back. */
export async function settleCompanyCancel(listId: string, found: number, trx: typeof db) {
	const list = await trx
		.selectFrom('company_scraping_list')
		.select(['id', 'user_id', 'credits_reserved', 'attempt', 'found_before'])
		.where('id', '=', listId)
		.executeTakeFirst()
	if (list) await settle(list, found, trx)
}

async function finish(
	list: List,
	outcome: { ok: true } | { ok: false; error: string },
	executor: typeof db = db,
) {
	await inTransaction(executor, async (trx) => {
		const current = await trx
			.selectFrom('company_scraping_list')
			.select('found')
			.where('id', '=', list.id)
			.where('status', 'in', [JobStatus.pending, JobStatus.processing])
			.forUpdate()
			.executeTakeFirst()
		if (!current) return
		const settled = await settle(list, current.found, trx)
		await trx
			.updateTable('company_scraping_list')
			.set({
				status: outcome.ok ? JobStatus.success : JobStatus.fail,
				error: outcome.ok ? null : `${outcome.error} ${keptNote(list, current.found, settled)}`,
				progress: outcome.ok ? 100 : sql`progress`,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', list.id)
			.execute()
	})
}

const LIST_COLUMNS = [
	'id',
	'user_id',
	'workspace_id',
	'status',
	'found',
	'requested',
	'input_domains',
	'items_read',
	'key_kind',
	'credits_reserved',
	'attempt',
	'found_before',
] as const

/** Domain lookups still pending or running while no job of theirs is queued or running. */
export async function unfinishedCompanyScrapes(quietSeconds: number) {
	const rows = await db
		.selectFrom('company_scraping_list as c')
		.select('c.id')
		.where('c.status', 'in', [JobStatus.pending, JobStatus.processing])
		// an Apollo search's list is the lead-scrape job's
		.where((eb) =>
			eb.not(
				eb.exists(
					eb
						.selectFrom('apollo_requests as r')
						.select('r.id')
						.whereRef('r.company_list_id', '=', 'c.id'),
				),
			),
		)
		.where(quietFor('c.updated_at', quietSeconds))
		.where(withoutLiveJob('company-scrape', sql`jsonb_build_object('listId', c.id)`))
		.execute()
	return rows.map((r) => ({ listId: r.id }))
}

/** The sweep's end of domain lookups whose job pg-boss will not run again (decision 0062). */
export async function settleEndedCompanyScrape(listId: string) {
	return db.transaction().execute(async (trx) => {
		const list = (await trx
			.selectFrom('company_scraping_list')
			.select(LIST_COLUMNS)
			.where('id', '=', listId)
			.forUpdate()
			.executeTakeFirst()) as List | undefined
		if (list?.status !== JobStatus.pending && list?.status !== JobStatus.processing) return false
		const ended = await endedJob(trx, 'company-scrape', { listId })
		if (!ended) return false
		await finish(list, { ok: false, error: `The lookup stopped. ${whyEnded(ended)}` }, trx)
		return true
	})
}

/** An Apollo failure that ends the list: said as final, never "we will try again". */
function finalApolloMessage(error: ApolloError) {
	if (error.kind === 'rate-limited')
		return 'Apollo kept rate limiting the lookups, so they stopped after several tries.'
	if (error.kind === 'unavailable')
		// a malformed answer says what was wrong; the others only promised another try
		return error.cause instanceof MalformedAnswerError
			? `${error.message} The lookups stopped after several tries.`
			: 'Apollo could not be reached or kept failing, so the lookups stopped after several tries.'
	return error.message
}

/**
 * The company-scrape job for pasted or uploaded domains: enriches each through
 * Apollo, a batch at a time, checkpointing after every batch.
 */
export async function runCompanyScrape(listId: string, job: JobContext) {
	const list = (await db
		.selectFrom('company_scraping_list')
		.select(LIST_COLUMNS)
		.where('id', '=', listId)
		.executeTakeFirst()) as List | undefined
	if (!list || list.status === JobStatus.success || list.status === JobStatus.fail) return
	await db
		.updateTable('company_scraping_list')
		.set({
			status: JobStatus.processing,
			started_at: sql`coalesce(started_at, now())`,
			updated_at: sql`now()`,
		})
		.where('id', '=', list.id)
		.where('status', '=', JobStatus.pending)
		.execute()
	try {
		const apollo = await apolloFor(list)
		for (let offset = list.items_read; offset < list.input_domains.length; offset += BATCH) {
			if (job.signal.aborted) throw new Error('worker stopping')
			const current = await db
				.selectFrom('company_scraping_list')
				.select('status')
				.where('id', '=', list.id)
				.executeTakeFirst()
			if (current?.status !== JobStatus.processing) return
			const domains = list.input_domains.slice(offset, offset + BATCH)
			const organizations = await enrichBatch(apollo, domains, job.signal)
			const companies = organizations
				.map((org, i) => (org ? mapApolloOrganization(org, domains[i]) : null))
				.filter((c): c is CompanyFields => c !== null)
			const read = offset + domains.length
			// A cancel holds this lock while it settles: a batch found after it is not written.
			const written = await db.transaction().execute(async (trx) => {
				const now = await trx
					.selectFrom('company_scraping_list')
					.select('status')
					.where('id', '=', list.id)
					.forUpdate()
					.executeTakeFirst()
				if (now?.status !== JobStatus.processing) return false
				let inserted = 0
				if (companies.length > 0) {
					const rows = await trx
						.insertInto('companies')
						.values(
							companies.map((c) => ({
								...c,
								data: JSON.stringify(c.data),
								list_id: list.id,
								user_id: list.user_id,
								workspace_id: list.workspace_id,
							})),
						)
						.onConflict((oc) => oc.doNothing())
						.returning('id')
						.execute()
					inserted = rows.length
				}
				await trx
					.updateTable('company_scraping_list')
					.set({
						items_read: read,
						found: sql`found + ${inserted}`,
						progress: Math.min(99, Math.floor((read / list.input_domains.length) * 100)),
						updated_at: sql`now()`,
					})
					.where('id', '=', list.id)
					.execute()
				return true
			})
			if (!written) return
		}
		await finish(list, { ok: true })
	} catch (error) {
		// the database restarting is no reason to fail (and refund): the retry resumes
		const retryable = error instanceof ApolloError && error.retryable
		if (retryLater(error, job, COMPANY_JOB_RETRY_LIMIT, retryable)) throw error
		if (!(error instanceof ApolloError))
			logger.error({ err: error, listId }, 'company scrape failed')
		await finish(list, {
			ok: false,
			error:
				error instanceof ApolloError
					? finalApolloMessage(error)
					: 'Something went wrong while looking up the companies.',
		})
	}
}
