import { sql } from 'kysely'
import { db } from '../../../db/index.server.ts'
import { getConfig } from '../../config.server.ts'
import type { AccountContext } from '../../context.server.ts'
import { enqueue } from '../../jobs/enqueue.server.ts'
import { enrichJob } from '../../jobs/definitions/enrich.server.ts'
import { FormError, isUuid, notFound } from '../../utils/http-errors.server.ts'
import { InsufficientCreditsError, reserveCredits } from '../billing/credits.server.ts'
import { findLeadList } from '../lists/find-list.server.ts'
import { actingAccount } from '../workspaces/access.server.ts'
import { findChain, findEnrichment, listEnrichments } from './enrichments.server.ts'
import { cancelRunById, enrichReference, JobStatus, type RunStep } from './run-enrichment.server.ts'

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
	const steps: RunStep[] = chain.steps.map((step) => {
		if (step.kind !== 'ai') return step
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
	credits: number
	payWith: 'ownKey' | 'credits'
	name: string
}

/** Rows times AI steps times CREDITS_PER_ENRICHMENT, or 0 with the account's own key. */
export async function estimateRun(
	context: AccountContext | null,
	input: { listId: string; target: string; payWith: 'ownKey' | 'credits' },
): Promise<Estimate> {
	const account = actingAccount(context)
	const { list } = await findLeadList(account, input.listId)
	const { name, steps } = await resolveSteps(account, parseTarget(input.target))
	const { n } = await db
		.selectFrom('leads')
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.where('list_id', '=', list.id)
		.executeTakeFirstOrThrow()
	const rows = Number(n)
	const aiSteps = steps.filter((s) => s.kind === 'ai').length
	const calls = rows * aiSteps
	const credits = input.payWith === 'ownKey' ? 0 : calls * getConfig().CREDITS_PER_ENRICHMENT
	return { rows, aiSteps, calls, credits, payWith: input.payWith, name }
}

function checkProvider(account: AccountContext, aiSteps: number, payWith: 'ownKey' | 'credits') {
	if (aiSteps === 0) return
	if (payWith === 'ownKey' && !account.apiKeyProviders.includes('openai'))
		throw new FormError('Add an OpenAI-compatible key on the API keys page first.', 'payWith')
	if (payWith === 'credits' && !getConfig().OPENAI_API_KEY)
		throw new FormError('Paying with credits is not available: use your own key.', 'payWith')
}

/** Creates the run, its rows and the credit hold, and queues the enrich job, in one transaction. */
export async function startRun(
	context: AccountContext | null,
	input: { listId: string; target: string; payWith: 'ownKey' | 'credits' },
) {
	const account = actingAccount(context)
	const { list } = await findLeadList(account, input.listId)
	const resolved = await resolveSteps(account, parseTarget(input.target))
	const estimate = await estimateRun(account, input)
	checkProvider(account, estimate.aiSteps, input.payWith)
	if (estimate.rows === 0) throw new FormError('This list has no leads yet.', 'target')
	try {
		return await db.transaction().execute(async (trx) => {
			const run = await trx
				.insertInto('enrichment_runs')
				.values({
					user_id: account.accountId,
					workspace_id: list.workspaceId,
					list_id: list.id,
					enrichment_id: resolved.enrichmentId,
					chain_id: resolved.chainId,
					name: resolved.name,
					steps: JSON.stringify(resolved.steps),
					key_kind: input.payWith,
					credits_reserved: estimate.credits,
					credits_per_call: input.payWith === 'credits' ? getConfig().CREDITS_PER_ENRICHMENT : 0,
				})
				.returning('id')
				.executeTakeFirstOrThrow()
			const inserted = await sql<{ n: number }>`
				with ins as (
					insert into enrichment_run_rows (run_id, lead_id)
					select ${run.id}::uuid, id from leads where list_id = ${list.id}
					returning 1
				) select count(*)::int as n from ins`.execute(trx)
			await trx
				.updateTable('enrichment_runs')
				.set({ total: inserted.rows[0]!.n })
				.where('id', '=', run.id)
				.execute()
			if (estimate.credits > 0)
				await reserveCredits(trx, {
					accountId: account.accountId,
					amount: estimate.credits,
					reference: enrichReference(run.id, 1),
				})
			await enqueue(enrichJob, { runId: run.id }, { db: trx })
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
	await findLeadList(account, run.list_id)
	return run
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
export async function retryFailedRows(context: AccountContext | null, runId: string) {
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
		return await db.transaction().execute(async (trx) => {
			const reset = await trx
				.updateTable('enrichment_run_rows')
				.set({ status: JobStatus.pending, error: null, calls: 0, cached: 0, attempt })
				.where('run_id', '=', run.id)
				.where((eb) =>
					// a cancelled or failed run also leaves rows it never reached
					eb.or([eb('status', '=', JobStatus.fail), eb('status', 'in', [0, 1])]),
				)
				.returning('lead_id')
				.execute()
			if (reset.length === 0) throw new FormError('No rows to retry: every row succeeded.')
			const credits = reset.length * aiSteps * run.credits_per_call
			await trx
				.updateTable('enrichment_runs')
				.set({
					status: JobStatus.pending,
					error: null,
					attempt,
					credits_reserved: credits,
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
				})
			await enqueue(enrichJob, { runId: run.id }, { db: trx })
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
	done: number
	failed: number
	calls: number
	cached: number
	keyKind: string
	outputColumns: string[]
	createdAt: Date
}

/** The list's runs, newest first, with per-row counts. */
export async function listRuns(context: AccountContext | null, listId: string) {
	const account = actingAccount(context)
	const { list } = await findLeadList(account, listId)
	const runs = await db
		.selectFrom('enrichment_runs as e')
		.select([
			'e.id',
			'e.name',
			'e.status',
			'e.error',
			'e.total',
			'e.key_kind',
			'e.steps',
			'e.created_at',
			(eb) =>
				eb
					.selectFrom('enrichment_run_rows as r')
					.select(sql<number>`count(*) filter (where r.status = 2)::int`.as('n'))
					.whereRef('r.run_id', '=', 'e.id')
					.as('done'),
			(eb) =>
				eb
					.selectFrom('enrichment_run_rows as r')
					.select(sql<number>`count(*) filter (where r.status = 3)::int`.as('n'))
					.whereRef('r.run_id', '=', 'e.id')
					.as('failed'),
			(eb) =>
				eb
					.selectFrom('enrichment_run_rows as r')
					.select(sql<number>`coalesce(sum(r.calls), 0)::int`.as('n'))
					.whereRef('r.run_id', '=', 'e.id')
					.as('calls'),
			(eb) =>
				eb
					.selectFrom('enrichment_run_rows as r')
					.select(sql<number>`coalesce(sum(r.cached), 0)::int`.as('n'))
					.whereRef('r.run_id', '=', 'e.id')
					.as('cached'),
		])
		.where('e.list_id', '=', list.id)
		.where('e.user_id', '=', account.accountId)
		.orderBy('e.created_at', 'desc')
		.limit(20)
		.execute()
	return runs.map((r): RunSummary => ({
		id: r.id,
		name: r.name,
		status: r.status,
		error: r.error,
		total: r.total,
		done: r.done ?? 0,
		failed: r.failed ?? 0,
		calls: r.calls ?? 0,
		cached: r.cached ?? 0,
		keyKind: r.key_kind,
		outputColumns: [...new Set((r.steps as RunStep[]).map((s) => s.outputColumn))],
		createdAt: r.created_at,
	}))
}

/** Leads of the list with the run's output columns and each row's status (first 50). */
export async function runResults(context: AccountContext | null, listId: string, runId: string) {
	const account = actingAccount(context)
	const run = await findRun(account, runId)
	if (run.list_id !== listId) notFound('This run')
	const rows = await db
		.selectFrom('enrichment_run_rows as r')
		.innerJoin('leads as l', 'l.id', 'r.lead_id')
		.select(['l.id', 'l.email', 'l.first_name', 'l.last_name', 'l.data', 'r.status', 'r.error'])
		.where('r.run_id', '=', run.id)
		.orderBy('l.id')
		.limit(50)
		.execute()
	return rows.map((r) => ({
		id: r.id,
		email: r.email,
		name: [r.first_name, r.last_name].filter(Boolean).join(' '),
		data: r.data as Record<string, unknown>,
		status: r.status,
		error: r.error,
	}))
}
