import { sql, type Kysely, type Selectable } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { VERIFIER_LABELS, type VerifierName } from '../../integrations/email-verifiers.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import {
	getCreditBalance,
	InsufficientCreditsError,
	reserveCredits,
} from '../billing/credits.server.ts'
import { describeFilter, type RunFilter } from '../enrichments/run-filter.ts'
import {
	checkFilter,
	filteredLeads,
	type FilterTarget,
	type RunFilterInput,
} from '../enrichments/run-filter.server.ts'
import { findLeadList } from '../lists/find-list.server.ts'
import { lockListForStart } from '../lists/list-lock.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { settleVerification, verifyReference, VerifyState } from './run-verification.server.ts'
import { VERIFY_STATUSES, type VerifyStatus } from './statuses.ts'

// Verifying a list, or the part of it a filter takes (decision 0086): an estimate, a run with
// its status row and one row per lead (written at start, in the transaction that holds the
// credits and queues the job), cancel, the list's runs and its summary by status.

export type PayWith = 'credits' | VerifierName
/** which of the filtered leads a run takes */
export type VerifyOnly = 'unverified' | 'unknown' | 'all'

export type VerifyInput = {
	listId: string
	payWith: PayWith
	only: VerifyOnly
	filter?: RunFilterInput
	/** the form field a refusal to pay names (another form's, e.g. the upload's "verify first") */
	payWithField?: string
}

type Account = AccountContext & { accountId: string }

/** The provider and key a run would use, or a form error saying what is missing. */
async function providerOf(account: Account, payWith: PayWith, field = 'payWith') {
	const config = getConfig()
	if (payWith === 'credits') {
		const provider = config.VERIFY_PROVIDER
		const key = platformKey(provider)
		if (!key)
			throw new FormError(
				'Paying with credits is not available: add your own verification key on the API keys page.',
				field,
			)
		return { provider, keyKind: 'credits' as const, price: config.CREDITS_PER_VERIFICATION }
	}
	const own = await getProviderKey(account.accountId, payWith)
	if (!own)
		throw new FormError(`Add a ${VERIFIER_LABELS[payWith]} key on the API keys page first.`, field)
	// a key whose last test failed is not used: say so now, not after the job started
	const tested = await db
		.selectFrom('api_keys')
		.select('test_error')
		.where('user_id', '=', account.accountId)
		.where('provider', '=', payWith)
		.executeTakeFirst()
	if (tested?.test_error)
		throw new FormError(
			`Your ${VERIFIER_LABELS[payWith]} key failed its last test: ${tested.test_error} Fix it on the API keys page.`,
			field,
		)
	return { provider: payWith, keyKind: 'ownKey' as const, price: 0 }
}

export function platformKey(provider: VerifierName) {
	const config = getConfig()
	return provider === 'millionverifier'
		? config.MILLIONVERIFIER_API_KEY
		: provider === 'zerobounce'
			? config.ZEROBOUNCE_API_KEY
			: config.REACHER_API_KEY
}

/** The leads a run takes: the filter's, with an email, and the choice of which. */
function runLeads(executor: Kysely<DB>, target: FilterTarget, filter: RunFilter, only: VerifyOnly) {
	return filteredLeads(executor, target, filter)
		.where('leads.email', '<>', '')
		.$if(only === 'unverified', (q) => q.where('leads.verify_status', 'is', null))
		.$if(only === 'unknown', (q) =>
			q.where((eb) =>
				eb.or([eb('leads.verify_status', 'is', null), eb('leads.verify_status', '=', 'unknown')]),
			),
		)
}

/** A cached answer is fresh for VERIFY_CACHE_DAYS. */
export function freshCheck(accountId: string) {
	return sql<boolean>`exists (select 1 from email_checks c where c.user_id = ${accountId}
		and c.email = lower(leads.email)
		and c.checked_at > now() - make_interval(days => ${getConfig().VERIFY_CACHE_DAYS}))`
}

async function prepare(account: Account, input: VerifyInput) {
	const { list } = await findLeadList(account, input.listId)
	const filter = await checkFilter(account, list.id, { ...input.filter, only: 'all' })
	const target: FilterTarget = {
		listId: list.id,
		accountId: account.accountId,
		enrichmentId: null,
		chainId: null,
		outputColumns: [],
	}
	return { list, filter, target }
}

async function countOf(
	executor: Kysely<DB>,
	account: Account,
	prepared: Awaited<ReturnType<typeof prepare>>,
	only: VerifyOnly,
) {
	const row = await runLeads(executor, prepared.target, prepared.filter, only)
		.select((eb) => [
			eb.fn.countAll<string>().as('rows'),
			sql<string>`count(*) filter (where ${freshCheck(account.accountId)})`.as('cached'),
		])
		.executeTakeFirstOrThrow()
	return { rows: Number(row.rows), cached: Number(row.cached) }
}

export type VerifyEstimate = {
	rows: number
	cached: number
	/** emails the provider would be asked about */
	toCheck: number
	/** credits held at start (every email to check, at the price of a definitive answer) */
	credits: number
	balance: number
	provider: string
	payWith: PayWith
	filter: string[]
}

function nothingToVerify(filter: RunFilter, only: VerifyOnly) {
	return new FormError(
		only === 'unverified'
			? 'Every lead here has been verified already. Choose “every lead” to check them again.'
			: filter.q || filter.where.length
				? 'No lead of this list matches these filters: nothing to verify. Loosen them.'
				: 'This list has no leads to verify.',
	)
}

/** How many leads a run would take, how many answers are cached (free), and the credits. */
export async function estimateVerification(
	context: AccountContext | null,
	input: VerifyInput,
): Promise<VerifyEstimate> {
	const account = actingAccount(context)
	const prepared = await prepare(account, input)
	const key = await providerOf(account, input.payWith)
	const { rows, cached } = await countOf(db, account, prepared, input.only)
	if (rows === 0) throw nothingToVerify(prepared.filter, input.only)
	return {
		rows,
		cached,
		toCheck: rows - cached,
		credits: (rows - cached) * key.price,
		balance: await getCreditBalance(account.accountId),
		provider: VERIFIER_LABELS[key.provider],
		payWith: input.payWith,
		filter: describeFilter(prepared.filter),
	}
}

/**
 * Starts a run: its status row, one row per lead it takes, the credit hold for the emails
 * that need a check and its job, in one transaction (sent twice, the caller's once-per-
 * submission guard answers the first). One run at a time per list.
 */
export async function startVerification(
	context: AccountContext | null,
	input: VerifyInput,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const prepared = await prepare(account, input)
	const key = await providerOf(account, input.payWith, input.payWithField)
	try {
		return await inTransaction(executor, async (trx) => {
			// one run of a list at a time: the list row is the lock, which a delete of the list
			// waits for too (or took first: the list's 404, decision 0107)
			await lockListForStart(trx, 'leads', prepared.list.id, 'update')
			const running = await trx
				.selectFrom('verification_runs')
				.select('id')
				.where('list_id', '=', prepared.list.id)
				.where('status', 'in', [VerifyState.pending, VerifyState.running])
				.executeTakeFirst()
			if (running)
				throw new FormError(
					'A verification of this list is running: wait for it or cancel it first.',
				)
			const { rows, cached } = await countOf(trx, account, prepared, input.only)
			if (rows === 0) throw nothingToVerify(prepared.filter, input.only)
			const credits = (rows - cached) * key.price
			const run = await trx
				.insertInto('verification_runs')
				.values({
					user_id: account.accountId,
					list_id: prepared.list.id,
					filter: JSON.stringify({ ...prepared.filter, verify: input.only }),
					provider: key.provider,
					key_kind: key.keyKind,
					total: rows,
					credits_reserved: credits,
					credits_per_check: key.price,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			const leads = runLeads(trx, prepared.target, prepared.filter, input.only).select([
				sql<string>`${run.id}::uuid`.as('run_id'),
				'leads.id as lead_id',
				sql<string>`lower(leads.email)`.as('email'),
			])
			await trx
				.insertInto('verification_run_rows')
				.columns(['run_id', 'lead_id', 'email'])
				.expression(leads)
				.execute()
			if (credits > 0)
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: credits,
					reference: verifyReference(run.id),
					subject: { listId: input.listId, verificationRunId: run.id },
				})
			await enqueue('verify', { runId: run.id }, { db: trx })
			return { runId: run.id, rows, cached }
		})
	} catch (error) {
		if (error instanceof InsufficientCreditsError)
			throw new FormError(
				`${error.message} Buy credits or use your own key.`,
				input.payWithField ?? 'payWith',
			)
		throw error
	}
}

/** The account's run, on a list this user may use; anything else is a 404. */
export async function findVerification(
	context: AccountContext | null,
	listId: string,
	runId: unknown,
) {
	const account = actingAccount(context)
	const { list } = await findLeadList(account, listId)
	if (!isUuid(runId)) notFound('This run')
	const run = await db
		.selectFrom('verification_runs')
		.selectAll()
		.where('id', '=', runId)
		.where('user_id', '=', account.accountId)
		.where('list_id', '=', list.id)
		.executeTakeFirst()
	if (!run) notFound('This run')
	return run
}

/** Cancels a run that has not ended: its work stops, what is not checked is refunded. */
export async function cancelVerification(
	context: AccountContext | null,
	listId: string,
	runId: unknown,
) {
	const run = await findVerification(context, listId, runId)
	const cancelled = await settleVerification(run.id, {
		state: VerifyState.failed,
		error: 'Cancelled',
	})
	if (!cancelled) throw new FormError('This run has already ended.')
}

export type VerifyRunSummary = {
	id: string
	status: number
	error: string | null
	/** what the run did differently from what was asked, for the person (bulk fallback, faults) */
	notes: string[]
	provider: string
	keyKind: string
	total: number
	done: number
	cached: number
	charged: number
	creditsReserved: number
	creditsPerCheck: number
	filter: string[]
	only: VerifyOnly
	createdAt: string
	finishedAt: string | null
}

/** The list's runs, newest first (the first is the one the page follows). */
export async function listVerifications(context: AccountContext | null, listId: string) {
	const account = actingAccount(context)
	const { list } = await findLeadList(account, listId)
	const runs = await db
		.selectFrom('verification_runs')
		.selectAll()
		.where('list_id', '=', list.id)
		.where('user_id', '=', account.accountId)
		.orderBy('created_at', 'desc')
		.limit(10)
		.execute()
	return runs.map(summaryOf)
}

function summaryOf(r: Selectable<DB['verification_runs']>): VerifyRunSummary {
	return {
		id: r.id,
		status: r.status,
		error: r.error,
		notes: r.notes,
		provider: VERIFIER_LABELS[r.provider as VerifierName] ?? r.provider,
		keyKind: r.key_kind,
		total: r.total,
		done: r.checked,
		cached: r.cached,
		charged: r.charged,
		creditsReserved: r.credits_reserved,
		creditsPerCheck: r.credits_per_check,
		filter: describeFilter(r.filter as RunFilter | null),
		only: ((r.filter as { verify?: VerifyOnly } | null)?.verify ?? 'all') as VerifyOnly,
		createdAt: r.created_at.toISOString(),
		finishedAt: r.finished_at?.toISOString() ?? null,
	}
}

/** A run by its id alone (the API's), with its list: 404 unless both are this user's to see. */
export async function findVerificationRun(context: AccountContext | null, runId: unknown) {
	const account = actingAccount(context)
	if (!isUuid(runId)) notFound('This run')
	const owned = await db
		.selectFrom('verification_runs')
		.select('list_id')
		.where('id', '=', runId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!owned) notFound('This run')
	const run = await findVerification(account, owned.list_id, runId)
	return { ...summaryOf(run), listId: run.list_id }
}

/** The list's leads by our status (and how many are not verified), for the summary bar. */
export async function statusCounts(listId: string) {
	const rows = await db
		.selectFrom('leads')
		.select(['verify_status', (eb) => eb.fn.countAll<string>().as('n')])
		.where(sql<boolean>`list_id = any(${[listId]}::uuid[])`)
		.groupBy('verify_status')
		.execute()
	const counts = Object.fromEntries(VERIFY_STATUSES.map((s) => [s, 0])) as Record<
		VerifyStatus | 'unverified',
		number
	>
	counts.unverified = 0
	for (const row of rows)
		counts[(row.verify_status as VerifyStatus | null) ?? 'unverified'] = Number(row.n)
	return counts
}
