import { sql, type Kysely, type Selectable } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import {
	chainVerifierOf,
	NO_VERIFIER_KEY,
	platformVerifier,
} from '../verification/check-email.server.ts'
import { InsufficientCreditsError, reserveCredits } from '../billing/credits.server.ts'
import { paidCallsNow, type PaidCalls } from './paid-calls.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { findCompanyList, findLeadList } from '../lists/find-list.server.ts'
import { lockListForStart } from '../lists/list-lock.server.ts'
import { LIST_KINDS, type ListKind, type RunRowShown } from '../lists/list-kinds.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { companyColumns, findChain, findEnrichment, listEnrichments } from './enrichments.server.ts'
import type { ResultsQuery, ResultStatus } from './results-query.ts'
import { RESULTS_PAGE_SIZE } from './results-query.ts'
import { describeFilter, isWholeList, type RunFilter } from './run-filter.ts'
import {
	checkFilter,
	filteredCompanies,
	filteredLeads,
	type FilterTarget,
	type RunFilterInput,
} from './run-filter.server.ts'
import {
	cancelRunById,
	enrichReference,
	enrichVerifyReference,
	JobStatus,
	runRowsTable,
	sourceOf,
	type RunSource,
	type RunStep,
} from './run-enrichment.server.ts'
import { placeholders } from './template.ts'

export type RunTarget = { kind: 'enrichment' | 'chain'; id: string }

export function parseTarget(value: string): RunTarget {
	const [kind, id] = value.split(':') as [string, string]
	if ((kind !== 'enrichment' && kind !== 'chain') || !isUuid(id))
		throw new FormError('Choose an enrichment or a chain.', 'target')
	return { kind, id }
}

/** The steps a run takes, as a snapshot, and a name for it. */
async function resolveSteps(account: AccountContext, target: RunTarget) {
	if (target.kind === 'enrichment') {
		const e = await findEnrichment(account, target.id)
		const steps: RunStep[] = [
			{
				kind: 'ai',
				enrichmentId: e.id,
				name: e.name,
				prompt: e.prompt,
				outputColumn: e.outputColumn,
				format: e.format,
				model: e.model,
				temperature: e.temperature,
				condition: null,
			},
		]
		return { name: e.name, steps, enrichmentId: e.id, chainId: null }
	}
	const chain = await findChain(account, target.id)
	const enrichments = await listEnrichments(account)
	const steps: RunStep[] = chain.steps.map((step): RunStep => {
		// the chain's catch-all policy as it is now: an edit later does not change this run
		if (step.kind === 'verify-email')
			return { ...step, kind: 'verify-email', acceptCatchAll: chain.catchAll === 'accept' }
		if (step.kind !== 'ai') return { ...step, kind: step.kind }
		const e = enrichments.find((x) => x.id === step.enrichmentId)
		if (!e) throw new FormError('An enrichment of this chain was deleted.', 'target')
		return {
			kind: 'ai',
			enrichmentId: e.id,
			name: e.name,
			prompt: e.prompt,
			outputColumn: e.outputColumn,
			format: e.format,
			model: e.model,
			temperature: e.temperature,
			condition: step.condition,
		}
	})
	return { name: chain.name, steps, enrichmentId: null, chainId: chain.id }
}

export type Estimate = {
	rows: number
	aiSteps: number
	/** at most this many paid model calls (cached rows cost nothing and are refunded) */
	calls: number
	/** credits held while it runs: every call paid (what is not used comes back) */
	credits: number
	/** of which for Verify email steps on the platform's key (a definitive answer each) */
	verifyCredits: number
	/** credits it would really charge now (cached answers are free); null when not known */
	charged: number | null
	/** answers already cached (free); null when not known */
	cached: number | null
	payWith: 'ownKey' | 'credits'
	name: string
	/** the filter in words; empty for the whole list */
	filter: string[]
}

export type RunInput = {
	listId: string
	/** a lead list (the default) or a company list */
	source?: RunSource
	target: string
	payWith: 'ownKey' | 'credits'
	/** which leads of the list (the whole list without one) */
	filter?: RunFilterInput
}

/** The list, the steps and the leads a run would take, checked. */
async function prepareRun(account: AccountContext & { accountId: string }, input: RunInput) {
	const source = input.source ?? 'leads'
	const list =
		source === 'companies'
			? await companyListOf(account, input.listId)
			: (await findLeadList(account, input.listId)).list
	const resolved = await resolveSteps(account, parseTarget(input.target))
	const columns = source === 'companies' ? () => companyColumns(account, list.id) : undefined
	if (columns) checkCompanySteps(resolved.steps, await columns())
	// a Verify email step asks the account's own verification key (no credits for it), else the
	// platform's paid with credits when the run is (decision 0099)
	const verifySteps = resolved.steps.filter((s) => s.kind === 'verify-email').length
	let verifyPrice = 0
	if (verifySteps > 0 && !chainVerifierOf(account.apiKeyProviders)) {
		if (input.payWith !== 'credits' || !platformVerifier())
			throw new FormError(NO_VERIFIER_KEY, 'target')
		verifyPrice = getConfig().CREDITS_PER_VERIFICATION
	}
	const filter = await checkFilter(account, list.id, input.filter, columns)
	const target: FilterTarget = {
		listId: list.id,
		accountId: account.accountId,
		enrichmentId: resolved.enrichmentId,
		chainId: resolved.chainId,
		outputColumns: [...new Set(resolved.steps.map((s) => s.outputColumn))],
	}
	const aiSteps = resolved.steps.filter((s) => s.kind === 'ai').length
	const price = input.payWith === 'ownKey' ? 0 : getConfig().CREDITS_PER_ENRICHMENT
	const estimate = (rows: number, paid: PaidCalls | null = null): Estimate => ({
		rows,
		aiSteps,
		calls: rows * aiSteps,
		credits: rows * aiSteps * price + rows * verifySteps * verifyPrice,
		verifyCredits: rows * verifySteps * verifyPrice,
		charged: paid ? paid.calls * price : null,
		cached: paid ? paid.cached : null,
		payWith: input.payWith,
		name: resolved.name,
		filter: describeFilter(filter),
	})
	return { source, list, resolved, filter, target, aiSteps, verifyPrice, estimate }
}

async function companyListOf(account: AccountContext, listId: string) {
	const { list } = await findCompanyList(account, listId)
	return { id: list.id, name: list.name, found: list.found, workspaceId: list.workspace_id }
}

/**
 * A company run takes AI steps whose prompts and conditions name company columns, outputs
 * or data keys of the list; the built-in steps read a lead's name and company.
 */
function checkCompanySteps(steps: RunStep[], columns: string[]) {
	for (const step of steps) {
		if (step.kind !== 'ai')
			throw new FormError(
				'This chain has a built-in step, which runs on lead lists only. Choose AI enrichments.',
				'target',
			)
		const unknown = placeholders(step.prompt).filter((p) => !columns.includes(p))
		if (step.condition && !columns.includes(step.condition.column))
			unknown.push(step.condition.column)
		if (unknown.length)
			throw new FormError(
				`“${step.name}” reads ${unknown.map((u) => `{{${u}}}`).join(', ')}, which companies do not have. Use company columns such as {{name}} and {{domain}}.`,
				'target',
			)
	}
}

/** The rows a run would take now (up to its start, for the run itself). */
function countRows(
	executor: Kysely<DB>,
	run: Awaited<ReturnType<typeof prepareRun>>,
	upToNow: boolean,
) {
	if (run.source === 'companies')
		return filteredCompanies(executor, run.target, run.filter)
			.$if(upToNow, (q) => q.where('companies.created_at', '<=', sql<Date>`now()`))
			.select((eb) => eb.fn.countAll<string>().as('n'))
			.executeTakeFirstOrThrow()
	return filteredLeads(executor, run.target, run.filter)
		.$if(upToNow, (q) => q.where('leads.created_at', '<=', sql<Date>`now()`))
		.select((eb) => eb.fn.countAll<string>().as('n'))
		.executeTakeFirstOrThrow()
}

function nothingToRun(filter: RunFilter, source: RunSource = 'leads') {
	if (source === 'companies')
		return isWholeList(filter)
			? new FormError('This list has no companies yet.', 'target')
			: new FormError('No company of this list matches these filters: nothing to run. Loosen them.')
	return isWholeList(filter)
		? new FormError('This list has no leads yet.', 'target')
		: new FormError('No lead of this list matches these filters: nothing to run. Loosen them.')
}

/**
 * Rows times AI steps times CREDITS_PER_ENRICHMENT (0 with the account's own key), for the
 * leads the filter takes; none is a form error.
 */
export async function estimateRun(context: AccountContext | null, input: RunInput) {
	const account = actingAccount(context)
	const run = await prepareRun(account, input)
	const { n } = await countRows(db, run, false)
	const rows = Number(n)
	if (rows === 0) throw nothingToRun(run.filter, run.source)
	// what a re-run really costs: the answers already cached are free
	const paid = await paidCallsNow({
		accountId: account.accountId,
		source: run.source,
		target: run.target,
		filter: run.filter,
		steps: run.resolved.steps,
		rows,
	})
	return run.estimate(rows, paid)
}

function checkProvider(account: AccountContext, aiSteps: number, payWith: 'ownKey' | 'credits') {
	if (aiSteps === 0) return
	if (payWith === 'ownKey' && !account.apiKeyProviders.includes('openai'))
		throw new FormError('Add an OpenAI-compatible key on the API keys page first.', 'payWith')
	if (payWith === 'credits' && !getConfig().OPENAI_API_KEY)
		throw new FormError('Paying with credits is not available: use your own key.', 'payWith')
}

/**
 * Creates the run, the credit hold for the leads the filter takes now and the enrich job, in
 * one transaction, without writing the run's rows: the job writes them first (writeRunRows),
 * taking only leads created up to the run's cut-off (this transaction's start), so a resumed
 * job enriches the same leads and leads added later are left out (decision 0019).
 */
export async function startRun(
	context: AccountContext | null,
	input: RunInput,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const prepared = await prepareRun(account, input)
	const { list, resolved, filter } = prepared
	checkProvider(account, prepared.aiSteps, input.payWith)
	try {
		return await inTransaction(executor, async (trx) => {
			// a delete of the list waits for this start, or went first: the list's 404 (0107)
			await lockListForStart(trx, prepared.source, list.id)
			const { n } = await countRows(trx, prepared, true)
			const rows = Number(n)
			// the transaction is rolled back: a run of nothing writes nothing
			if (rows === 0) throw nothingToRun(filter, prepared.source)
			const estimate = prepared.estimate(rows)
			const run = await trx
				.insertInto('enrichment_runs')
				.values({
					user_id: account.accountId,
					workspace_id: list.workspaceId,
					list_id: prepared.source === 'leads' ? list.id : null,
					company_list_id: prepared.source === 'companies' ? list.id : null,
					enrichment_id: resolved.enrichmentId,
					chain_id: resolved.chainId,
					name: resolved.name,
					steps: JSON.stringify(resolved.steps),
					filter: isWholeList(filter) ? null : JSON.stringify(filter),
					key_kind: input.payWith,
					credits_per_call: input.payWith === 'credits' ? getConfig().CREDITS_PER_ENRICHMENT : 0,
					total: rows,
					credits_reserved: estimate.credits - estimate.verifyCredits,
					verify_credits_reserved: estimate.verifyCredits,
					verify_credits_per_check: prepared.verifyPrice,
					prepared: false,
					// the same now() as the count above
					leads_cutoff: sql<Date>`now()`,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			const subject = {
				enrichmentRunId: run.id,
				listId: prepared.source === 'leads' ? list.id : null,
				companyListId: prepared.source === 'companies' ? list.id : null,
			}
			if (estimate.credits - estimate.verifyCredits > 0)
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: estimate.credits - estimate.verifyCredits,
					reference: enrichReference(run.id, 1),
					subject,
				})
			if (estimate.verifyCredits > 0)
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: estimate.verifyCredits,
					reference: enrichVerifyReference(run.id, 1),
					subject,
				})
			await enqueue('enrich', { runId: run.id }, { db: trx })
			return { runId: run.id, estimate }
		})
	} catch (error) {
		if (error instanceof InsufficientCreditsError)
			throw new FormError(`${error.message} Buy credits or use your own key.`, 'payWith')
		throw error
	}
}

async function findRun(account: AccountContext & { accountId: string }, runId: unknown) {
	if (!isUuid(runId)) notFound('This run')
	const run = await db
		.selectFrom('enrichment_runs')
		.selectAll()
		.where('id', '=', runId)
		.where('user_id', '=', account.accountId)
		.executeTakeFirst()
	if (!run) notFound('This run')
	if (run.company_list_id) await findCompanyList(account, run.company_list_id)
	else await findLeadList(account, run.list_id)
	return { ...run, source: sourceOf(run) }
}

export async function cancelRun(context: AccountContext | null, runId: string) {
	const account = actingAccount(context)
	const run = await findRun(account, runId)
	if (run.status === JobStatus.success || run.status === JobStatus.fail)
		throw new FormError('This run has already ended.')
	await cancelRunById(run.id)
	return run
}

/** Runs the failed rows of an ended run again, as a new attempt with its own credit hold. */
export async function retryFailedRows(
	context: AccountContext | null,
	runId: string,
	executor: Kysely<DB> = db,
) {
	const account = actingAccount(context)
	const run = await findRun(account, runId)
	if (run.status !== JobStatus.success && run.status !== JobStatus.fail)
		throw new FormError('This run is still going.')
	const steps = run.steps as RunStep[]
	const aiSteps = steps.filter((s) => s.kind === 'ai').length
	const payWith = run.key_kind === 'ownKey' ? 'ownKey' : 'credits'
	checkProvider(account, aiSteps, payWith)
	const attempt = run.attempt + 1
	try {
		return await inTransaction(executor, async (trx) => {
			// as a start: a delete of the list waits for it, or went first (decision 0107)
			await lockListForStart(trx, run.source, run.company_list_id ?? run.list_id!)
			// claims the run: a retry sent twice at once starts one attempt
			const ended = await trx
				.updateTable('enrichment_runs')
				.set({ updated_at: sql`now()` })
				.where('id', '=', run.id)
				.where('attempt', '=', run.attempt)
				.where('status', 'in', [JobStatus.success, JobStatus.fail])
				.returning('id')
				.executeTakeFirst()
			if (!ended) throw new FormError('This run is already running again.')
			// a cancelled or failed run also leaves rows it never reached
			const { rows: reset } = await sql`
				update ${runRowsTable(run.source)}
				set status = ${JobStatus.pending}, error = null, calls = 0, cached = 0, verify_charged = 0, attempt = ${attempt}
				where run_id = ${run.id} and (status = ${JobStatus.fail} or status in (0, 1))
				returning 1`.execute(trx)
			if (reset.length === 0) throw new FormError('No rows to retry: every row succeeded.')
			const credits = reset.length * aiSteps * run.credits_per_call
			const verifyCredits =
				reset.length *
				steps.filter((s) => s.kind === 'verify-email').length *
				run.verify_credits_per_check
			await trx
				.updateTable('enrichment_runs')
				.set({
					status: JobStatus.pending,
					error: null,
					attempt,
					credits_reserved: credits,
					verify_credits_reserved: verifyCredits,
					finished_at: null,
					updated_at: sql`now()`,
				})
				.where('id', '=', run.id)
				.execute()
			if (credits > 0)
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: credits,
					reference: enrichReference(run.id, attempt),
					subject: {
						enrichmentRunId: run.id,
						listId: run.list_id,
						companyListId: run.company_list_id,
					},
				})
			if (verifyCredits > 0)
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: verifyCredits,
					reference: enrichVerifyReference(run.id, attempt),
					subject: { enrichmentRunId: run.id, listId: run.list_id },
				})
			await enqueue('enrich', { runId: run.id }, { db: trx })
			return { rows: reset.length }
		})
	} catch (error) {
		if (error instanceof InsufficientCreditsError)
			throw new FormError(`${error.message} Buy credits or use your own key.`)
		throw error
	}
}

export type RunSummary = {
	id: string
	name: string
	status: number
	error: string | null
	total: number
	/** its rows are still being written: `total` is the leads it counted at start */
	preparing: boolean
	done: number
	failed: number
	calls: number
	cached: number
	keyKind: string
	outputColumns: string[]
	/** the filter it was started with, in words; empty for the whole list */
	filter: string[]
	createdAt: Date
}

/** The list's runs (a lead list's, or a company list's), newest first, with per-row counts. */
export async function listRuns(
	context: AccountContext | null,
	listId: string,
	source: RunSource = 'leads',
) {
	const account = actingAccount(context)
	const list =
		source === 'companies'
			? await companyListOf(account, listId)
			: (await findLeadList(account, listId)).list
	const runs = await db
		.selectFrom('enrichment_runs as e')
		.select([
			'e.id',
			'e.name',
			'e.status',
			'e.error',
			'e.total',
			'e.prepared',
			'e.key_kind',
			'e.steps',
			'e.filter',
			'e.created_at',
			// kept on the run as its rows are written (migration 2026-11-25T0900): no row is read
			'e.rows_done as done',
			'e.rows_failed as failed',
			'e.calls',
			'e.cached',
		])
		.where(source === 'companies' ? 'e.company_list_id' : 'e.list_id', '=', list.id)
		.where('e.user_id', '=', account.accountId)
		.orderBy('e.created_at', 'desc')
		.limit(20)
		.execute()
	return runs.map(summaryOf)
}

type SummaryRow = Pick<
	Selectable<DB['enrichment_runs']>,
	| 'id'
	| 'name'
	| 'status'
	| 'error'
	| 'total'
	| 'prepared'
	| 'calls'
	| 'cached'
	| 'key_kind'
	| 'steps'
	| 'filter'
	| 'created_at'
> & { done: number; failed: number }

function summaryOf(r: SummaryRow): RunSummary {
	return {
		id: r.id,
		name: r.name,
		status: r.status,
		error: r.error,
		total: r.total,
		preparing: !r.prepared && (r.status === JobStatus.pending || r.status === JobStatus.processing),
		done: r.done,
		failed: r.failed,
		calls: r.calls,
		cached: r.cached,
		keyKind: r.key_kind,
		outputColumns: [...new Set((r.steps as RunStep[]).map((s) => s.outputColumn))],
		filter: describeFilter(r.filter as RunFilter | null),
		createdAt: r.created_at,
	}
}

/**
 * One run as the enrich page's table shows it, with its list: 404 unless the run is the
 * account's and its list in a workspace this user may use.
 */
export async function findRunSummary(context: AccountContext | null, runId: unknown) {
	const account = actingAccount(context)
	const run = await findRun(account, runId)
	return {
		...summaryOf({ ...run, done: run.rows_done, failed: run.rows_failed }),
		source: run.source,
		listId: run.company_list_id ?? run.list_id!,
		creditsReserved: run.credits_reserved,
	}
}

const STATUS_OF: Record<ResultStatus, number[] | null> = {
	all: null,
	done: [JobStatus.success],
	failed: [JobStatus.fail],
	pending: [JobStatus.pending, JobStatus.processing],
}

/**
 * One page of a run's leads or companies (the list kind's descriptor says which tables and
 * columns) with its output columns and each row's status, optionally only the done, failed or
 * pending ones, paged by keyset on the row's id (the `after`/`before` cursors of the previous
 * page's links), so the last page of 10,000 rows costs what the first does; a page number
 * without a cursor falls back to an offset.
 */
export async function runResults<K extends ListKind>(
	kind: K,
	context: AccountContext | null,
	listId: string,
	runId: string,
	query: ResultsQuery = { status: 'all', page: 1 },
) {
	const { rowTable, runRows } = LIST_KINDS[kind]
	const account = actingAccount(context)
	const run = await findRun(account, runId)
	if (run[runRows.runList] !== listId) notFound('This run')
	const statuses = STATUS_OF[query.status]
	const cursor = query.after ?? query.before
	const backwards = !query.after && query.before !== undefined
	const rowId = sql.ref<string>(`r.${runRows.rowId}`)
	// the tables are the kind's, so the rows are typed here rather than by the builder
	const size = query.pageSize ?? RESULTS_PAGE_SIZE
	const fetched = (await db
		.selectFrom(sql.table(runRows.table).as('r'))
		.innerJoin(sql.table(rowTable).as('e'), (join) => join.on(sql.ref('e.id'), '=', rowId))
		.select([sql.ref('e.id').as('id'), sql.ref('e.data').as('data')])
		.select([sql.ref('r.status').as('status'), sql.ref('r.error').as('error')])
		.select(runRows.columns.map((column) => sql.ref(`e.${column}`).as(column)))
		.where(sql.ref('r.run_id'), '=', run.id)
		.$if(statuses !== null, (q) => q.where(sql.ref('r.status'), 'in', statuses!))
		.$if(cursor !== undefined, (q) => q.where(rowId, backwards ? '<' : '>', cursor!))
		.orderBy(rowId, backwards ? 'desc' : 'asc')
		.limit(size + 1)
		.offset(cursor ? 0 : (query.page - 1) * size)
		.execute()) as unknown as (Record<string, string | null> & {
		id: string
		data: Record<string, unknown>
		status: number
		error: string | null
	})[]
	return resultsPage(fetched, { ...query, pageSize: size }, backwards, (r) => ({
		id: r.id,
		...(runRows.shown(r) as RunRowShown[K]),
		data: r.data,
		status: r.status,
		error: r.error,
	}))
}

/** A page of run rows fetched one past the page size (keyset by id), with its Previous and Next. */
function resultsPage<Fetched extends { id: string }, Row>(
	fetched: Fetched[],
	query: ResultsQuery,
	backwards: boolean,
	toRow: (fetched: Fetched) => Row,
) {
	const size = query.pageSize ?? RESULTS_PAGE_SIZE
	const more = fetched.length > size
	const rows = fetched.slice(0, size)
	if (backwards) rows.reverse()
	const first = rows[0]
	const last = rows.at(-1)
	const hasPrevious = backwards ? more : query.page > 1
	const hasNext = backwards ? true : more
	return {
		rows: rows.map(toRow),
		firstIndex: (query.page - 1) * size + 1,
		previous:
			hasPrevious && first
				? query.page <= 2
					? { page: 1 }
					: { page: query.page - 1, before: first.id }
				: null,
		next: hasNext && last ? { page: query.page + 1, after: last.id } : null,
	}
}
