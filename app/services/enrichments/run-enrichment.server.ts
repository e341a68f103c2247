import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import { ApolloError, createApolloClient } from '../../integrations/apollo.server.ts'
import {
	createModelClient,
	ModelError,
	type ModelClient,
	type OutputFormat,
} from '../../integrations/openai.server.ts'
import { pausesForWindow, retryLater, type JobContext } from '../../jobs/define.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { patiently, sleep } from '../../utils/patience.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { commitCredits, releaseCredits } from '../billing/credits.server.ts'
import { inTransaction } from '../../utils/transaction.server.ts'
import { cacheKey, COMPANY_FIELDS, LEAD_FIELDS, modelProvider } from './enrichments.server.ts'
import { providerKeyId, takeSlot } from './rate-limit.server.ts'
import { notifyJobEnd } from '../notifications/record.server.ts'
import { WHOLE_LIST, type RunFilter } from './run-filter.ts'
import { filteredCompanies, filteredLeads } from './run-filter.server.ts'
import {
	emailChecker,
	NO_VERIFIER_KEY,
	type EmailChecker,
} from '../verification/check-email.server.ts'
import {
	columnValue,
	COMPANY_COLUMNS,
	conditionHolds,
	guessDomain,
	guessEmail,
	isEmptyValue,
	LEAD_COLUMNS,
	renderPrompt,
	type Condition,
	type LeadRow,
	type RowColumns,
	type RunRow,
} from './template.ts'

export const JobStatus = { pending: 0, processing: 1, success: 2, fail: 3 } as const
export const ENRICH_JOB_RETRY_LIMIT = 5
/** tries of one model call on 429 and 5xx before the row fails */
export const CALL_TRIES = 5
const PAGE_SIZE = 500
// Finished rows are written every FLUSH_ROWS rows or FLUSH_MS, whichever comes first: a worker
// killed outright loses (and the next one asks again) at most that much of the answers it had.
const FLUSH_ROWS = 100
const FLUSH_MS = 2000

/** Run rows the job writes per statement while it prepares a run (tests make it small). */
export const runRowsTuning = { batchRows: 50_000 }

/**
 * Test hooks: a throw from `beforeCommit` is a worker dying inside a batch of run rows (its
 * transaction rolls back), from `afterCommit` one dying right after a checkpoint.
 */
export const runRowsHooks: {
	beforeCommit?: (runId: string, batch: number) => void | Promise<void>
	afterCommit?: (runId: string, batch: number) => void | Promise<void>
} = {}

export const enrichReference = (runId: string, attempt: number) => `enrich:${runId}:${attempt}`
/** the hold of an attempt's Verify email steps paid with credits (decision 0099) */
export const enrichVerifyReference = (runId: string, attempt: number) =>
	`enrich-verify:${runId}:${attempt}`

/** A step as a run runs it: a snapshot of the enrichment taken when the run started. */
export type RunStep =
	| {
			kind: 'ai'
			enrichmentId: string
			name: string
			prompt: string
			outputColumn: string
			format: OutputFormat
			model: string
			/** null: the model's default (none sent); runs started before 0077 hold a number */
			temperature: number | null
			condition: Condition | null
	  }
	| { kind: 'email-guess' | 'company-domain'; outputColumn: string; condition: Condition | null }
	| {
			kind: 'verify-email'
			/** the column of the email it checks; the answer goes to `<column>_status` */
			outputColumn: string
			condition: Condition | null
			/** the chain's catch-all policy when the run started: catch-all counts as verified */
			acceptCatchAll: boolean
	  }

/**
 * What a run enriches: the leads of a lead list, or the companies of a company list
 * (decision 0039). Each has its own run-rows table, keyed (run_id, its row id).
 */
export type RunSource = 'leads' | 'companies'

const SOURCES = {
	leads: { rows: 'enrichment_run_rows', table: 'leads', id: 'lead_id', columns: undefined },
	companies: {
		rows: 'enrichment_company_rows',
		table: 'companies',
		id: 'company_id',
		columns: COMPANY_COLUMNS as RowColumns,
	},
} as const

export const sourceOf = (run: { company_list_id: string | null }): RunSource =>
	run.company_list_id ? 'companies' : 'leads'

/** The table of a run's rows, for raw SQL. */
export const runRowsTable = (source: RunSource) => sql.table(SOURCES[source].rows)

type Run = {
	id: string
	user_id: string
	source: RunSource
	status: number
	steps: RunStep[]
	key_kind: string
	attempt: number
	credits_reserved: number
	credits_per_call: number
	/** the Verify email steps' hold and price (the platform's key paid with credits), else 0 */
	verify_credits_reserved: number
	verify_credits_per_check: number
	/** every row of the run is written (by writeRunRows) */
	prepared: boolean
}

async function loadRun(runId: string, executor: Kysely<DB> = db): Promise<Run | undefined> {
	const row = await executor
		.selectFrom('enrichment_runs')
		.select([
			'id',
			'user_id',
			'status',
			'steps',
			'key_kind',
			'attempt',
			'credits_reserved',
			'credits_per_call',
			'verify_credits_reserved',
			'verify_credits_per_check',
			'prepared',
			'company_list_id',
		])
		.where('id', '=', runId)
		.executeTakeFirst()
	return row ? { ...row, source: sourceOf(row), steps: row.steps as RunStep[] } : undefined
}

type RowResult = {
	/** the lead's or the company's id */
	leadId: string
	patch: Record<string, unknown>
	status: number
	error: string | null
	calls: number
	cached: number
	/** Verify email answers charged (definitive, fresh, the platform's key) */
	verifyCharged: number
	cache: { hash: string; output: unknown }[]
}

class FatalRunError extends Error {}

/**
 * The provider kept answering 429 to one call: the job goes back to the queue to wait, without
 * spending an attempt (the worker reads `kind`, decision 0062); its rows stay pending.
 */
class RunRateLimited extends Error {
	readonly kind = 'rate-limited'
	readonly retryAfterSeconds: number | undefined
	/** Apollo's spent window: the job waits in the queue until then (decision 0077) */
	readonly resumeAt: Date | undefined
	constructor(retryAfterSeconds: number | undefined, window?: ApolloError) {
		super(window?.message ?? 'The AI provider kept rate limiting the run.')
		this.retryAfterSeconds = retryAfterSeconds
		this.resumeAt = window?.resumeAt
	}
}

/** 429s in a row one call waits out (the whole run slowing down) before the run waits in the queue */
export const RATE_LIMIT_TRIES = 20
/** rows in a row that fail because the provider is down (5xx, unreachable) before the run stops */
export const PROVIDER_DOWN_ROWS = 3

/**
 * One model call. A 429 is no failed try: the whole run pauses (Retry-After, else backing off)
 * and the call is made again. A 5xx or a lost connection is tried CALL_TRIES times, backing
 * off; once a row has failed that way, the next rows try once until a call succeeds, so a
 * provider that is down costs one call a row, not five, until the run stops.
 */
async function callModel(
	tools: Tools,
	step: Extract<RunStep, { kind: 'ai' }>,
	prompt: string,
	signal: AbortSignal,
) {
	const config = getConfig()
	let limited = 0
	for (let attempt = 1; ;) {
		const pause = tools.pace.pausedUntil - Date.now()
		if (pause > 0) await sleep(pause, signal)
		if (signal.aborted) throw new Error('worker stopping')
		// shared by every process using this key (decision 0016)
		await takeSlot(tools.keyId, config.ENRICH_RATE_PER_SECOND, signal)
		try {
			const output = await tools.model!.complete({
				model: step.model,
				prompt,
				temperature: step.temperature,
				format: step.format,
			})
			tools.pace.limitedInARow = 0
			tools.pace.downInARow = 0
			return output
		} catch (error) {
			if (!(error instanceof ModelError)) throw error
			if (error.fatal) throw new FatalRunError(error.message)
			if (signal.aborted) throw error
			if (error.kind === 'rate-limited') {
				limited += 1
				if (limited >= RATE_LIMIT_TRIES) throw new RunRateLimited(error.retryAfterSeconds)
				tools.pace.limitedInARow += 1
				const backoff = Math.min(30, 0.5 * 2 ** Math.min(tools.pace.limitedInARow, 6))
				const waitMs = (error.retryAfterSeconds ?? backoff) * 1000
				tools.pace.pausedUntil = Math.max(tools.pace.pausedUntil, Date.now() + waitMs)
				continue
			}
			const tries = tools.pace.downInARow > 0 ? 1 : CALL_TRIES
			if (!error.retryable || attempt >= tries) throw error
			const backoff = Math.min(30, 0.5 * 2 ** (attempt - 1)) * (0.75 + Math.random() / 2)
			await sleep((error.retryAfterSeconds ?? backoff) * 1000, signal)
			if (signal.aborted) throw error
			attempt += 1
		}
	}
}

type Tools = {
	model: ModelClient | null
	keyId: string
	/** the run's pace, shared by its concurrent calls */
	pace: {
		/** no call starts before this (ms): a 429 pauses the whole run */
		pausedUntil: number
		limitedInARow: number
		/** rows in a row whose call failed because the provider is down */
		downInARow: number
		/** the last such failure's message */
		downMessage: string | null
	}
	apollo: ReturnType<typeof createApolloClient> | null
	/** the account's verification key, for Verify email steps */
	checker: EmailChecker | null
	cached: (hash: string) => Promise<{ output: unknown } | undefined>
	/** answers fetched for a page in one query, and which hashes that query asked for */
	page?: { answers: Map<string, unknown>; asked: Set<string> }
}

/** Looks a page's prompts up in the cache in one query (steps rendered on the rows as loaded). */
async function prefetchCache(run: Run, leads: RunRow[], tools: Tools) {
	const asked = new Set<string>()
	const columns = SOURCES[run.source].columns
	for (const step of run.steps) {
		if (step.kind !== 'ai') continue
		for (const lead of leads)
			asked.add(
				cacheKey(
					renderPrompt(step.prompt, lead, columns),
					step.model,
					step.format,
					step.temperature,
				),
			)
	}
	const answers = new Map<string, unknown>()
	if (asked.size > 0) {
		const rows = await db
			.selectFrom('enrichment_cache')
			.select(['hash', 'output'])
			.where('user_id', '=', run.user_id)
			.where('hash', 'in', [...asked])
			.execute()
		for (const row of rows) answers.set(row.hash, row.output)
	}
	tools.page = { answers, asked }
}

async function lookUp(tools: Tools, hash: string) {
	if (tools.page?.answers.has(hash)) return { output: tools.page.answers.get(hash) }
	if (tools.page?.asked.has(hash)) return undefined
	return tools.cached(hash)
}

/**
 * One lead through every step: a step runs when its condition holds and its output column
 * has no non-empty result yet from an earlier step of this run (the waterfall).
 */
async function enrichRow(run: Run, lead: RunRow, tools: Tools, signal: AbortSignal) {
	const result: RowResult = {
		leadId: lead.id,
		patch: {},
		status: JobStatus.success,
		error: null,
		calls: 0,
		cached: 0,
		verifyCharged: 0,
		cache: [],
	}
	const row: RunRow = { ...lead, data: { ...lead.data } }
	const columns = SOURCES[run.source].columns
	const filled = new Set<string>()
	for (const step of run.steps) {
		if (step.kind === 'verify-email') {
			if (!conditionHolds(step.condition, row, columns)) continue
			const verified = await verifyStep(step, row, result, tools, signal)
			// not verified: the email found is dropped, so the next finder of this column runs
			if (!verified) {
				filled.delete(step.outputColumn)
				if (step.outputColumn in result.patch) {
					delete result.patch[step.outputColumn]
					delete row.data[step.outputColumn]
				}
			}
			continue
		}
		if (filled.has(step.outputColumn)) continue
		if (!conditionHolds(step.condition, row, columns)) continue
		let output: unknown
		if (step.kind === 'ai') {
			const prompt = renderPrompt(step.prompt, row, columns)
			const hash = cacheKey(prompt, step.model, step.format, step.temperature)
			const hit = await lookUp(tools, hash)
			if (hit) {
				output = hit.output
				result.cached += 1
			} else {
				try {
					output = await callModel(tools, step, prompt, signal)
					result.calls += 1
					// kept at once, not with the row's checkpoint: a worker that dies before the
					// checkpoint must not pay for this answer again (the resumed job finds it here)
					await db
						.insertInto('enrichment_cache')
						.values({ user_id: run.user_id, hash, output: JSON.stringify(output) })
						.onConflict((oc) => oc.doNothing())
						.execute()
				} catch (error) {
					if (error instanceof FatalRunError || error instanceof RunRateLimited) throw error
					if (signal.aborted) return null
					result.status = JobStatus.fail
					result.error =
						error instanceof ModelError ? error.message : 'The model call failed unexpectedly.'
					if (error instanceof ModelError && error.kind === 'unavailable') {
						tools.pace.downInARow += 1
						tools.pace.downMessage = error.message
					}
					if (!(error instanceof ModelError)) logger.error({ err: error }, 'enrichment call failed')
					continue
				}
			}
		} else if (run.source === 'companies') {
			// built-in steps are refused on company lists when the run starts
			continue
		} else if (step.kind === 'email-guess') {
			const lead = row as LeadRow
			output = guessEmail(lead, lead.company_domain || lead.data.company_domain_guess)
		} else {
			output = guessDomain((row as LeadRow).company_name)
			if (output && tools.apollo) {
				// an Apollo error is an error, not "no domain": rate limits are waited out, a
				// refused key stops the run, anything else fails the row with its reason
				try {
					const domain = output as string
					const org = await patiently(() => tools.apollo!.enrichOrganization(domain), signal)
					output = org?.primary_domain ?? null
				} catch (error) {
					if (error instanceof ApolloError && (error.kind === 'key' || error.kind === 'plan'))
						throw new FatalRunError(error.message)
					// a spent window pauses the run (its rows stay pending), it fails no row
					if (error instanceof ApolloError && error.resumeAt)
						throw new RunRateLimited(error.retryAfterSeconds, error)
					if (signal.aborted) return null
					result.status = JobStatus.fail
					result.error =
						error instanceof ApolloError ? error.message : 'The Apollo lookup failed unexpectedly.'
					if (!(error instanceof ApolloError)) logger.error({ err: error }, 'Apollo lookup failed')
					continue
				}
			}
		}
		if (!isEmptyValue(output)) {
			filled.add(step.outputColumn)
			row.data[step.outputColumn] = output
			result.patch[step.outputColumn] = output
		}
	}
	return result
}

/**
 * A Verify email step (issue 35 point 5): checks the email in its column (found by an earlier
 * step of this run, or the lead's own) and writes the answer to `<column>_status`. True when it
 * verifies under the chain's policy: valid, or catch-all when the chain accepts catch-all.
 */
async function verifyStep(
	step: Extract<RunStep, { kind: 'verify-email' }>,
	row: RunRow,
	result: RowResult,
	tools: Tools,
	signal: AbortSignal,
) {
	const value = columnValue(row, step.outputColumn, LEAD_COLUMNS)
	if (isEmptyValue(value) || !tools.checker) return false
	const check = await tools.checker.check(String(value), signal)
	if ('error' in check) {
		if (check.fatal) throw new FatalRunError(check.error)
		// the provider could not tell (down, garbage): unknown, never verified, not cached
		result.patch[`${step.outputColumn}_status`] = 'unknown'
		return false
	}
	result.patch[`${step.outputColumn}_status`] = check.status
	row.data[`${step.outputColumn}_status`] = check.status
	if (check.charged) result.verifyCharged += 1
	return check.status === 'valid' || (step.acceptCatchAll && check.status === 'catch_all')
}

/** Writes finished rows, their cache entries and their status in one transaction (the checkpoint). */
async function flush(run: Run, results: RowResult[]) {
	if (results.length === 0) return
	const cache = results.flatMap((r) => r.cache)
	await db.transaction().execute(async (trx) => {
		if (cache.length) {
			await trx
				.insertInto('enrichment_cache')
				.values(
					cache.map((c) => ({
						user_id: run.user_id,
						hash: c.hash,
						output: JSON.stringify(c.output),
					})),
				)
				.onConflict((oc) => oc.doNothing())
				.execute()
		}
		const rows = JSON.stringify(
			results.map((r) => ({
				lead_id: r.leadId,
				patch: r.patch,
				status: r.status,
				error: r.error,
				calls: r.calls,
				cached: r.cached,
				verify_charged: r.verifyCharged,
			})),
		)
		const source = SOURCES[run.source]
		await sql`
			update ${sql.table(source.table)} l set data = l.data || v.patch
			from jsonb_to_recordset(${rows}::jsonb) as v(lead_id uuid, patch jsonb)
			where l.id = v.lead_id and v.patch <> '{}'::jsonb`.execute(trx)
		await sql`
			update ${sql.table(source.rows)} r
			set status = v.status, error = v.error, calls = v.calls, cached = v.cached,
				verify_charged = v.verify_charged, updated_at = now()
			from jsonb_to_recordset(${rows}::jsonb)
				as v(lead_id uuid, status smallint, error text, calls integer, cached integer,
					verify_charged integer)
			where r.run_id = ${run.id} and ${sql.ref(`r.${source.id}`)} = v.lead_id
				and r.status in (0, 1)`.execute(trx)
		await trx
			.updateTable('enrichment_runs')
			// a note of a spent Apollo window is over once rows are written again
			.set({ updated_at: sql`now()`, error: sql`case when status = 1 then null else error end` })
			.where('id', '=', run.id)
			.execute()
	})
}

async function stillRunning(runId: string) {
	const row = await db
		.selectFrom('enrichment_runs')
		.select('status')
		.where('id', '=', runId)
		.executeTakeFirst()
	return row?.status === JobStatus.processing
}

/** Credits for the paid calls of this attempt; the rest of the hold (all on failure) goes back. */
export async function settleRunCredits(
	run: Pick<
		Run,
		| 'id'
		| 'user_id'
		| 'attempt'
		| 'credits_reserved'
		| 'credits_per_call'
		| 'verify_credits_reserved'
		| 'verify_credits_per_check'
	> & {
		source: RunSource
	},
	trx: Kysely<DB>,
	failed: boolean,
) {
	if (run.credits_reserved <= 0 && run.verify_credits_reserved <= 0) return
	const {
		rows: [{ calls, verified } = { calls: 0, verified: 0 }],
	} = await sql<{ calls: number; verified: number }>`
		select coalesce(sum(calls), 0)::int as calls, coalesce(sum(verify_charged), 0)::int as verified
		from ${runRowsTable(run.source)}
		where run_id = ${run.id} and attempt = ${run.attempt}`.execute(trx)
	const settle = async (reference: string, reserved: number, used: number) => {
		if (reserved <= 0) return
		used = Math.min(reserved, used)
		if (failed && used === 0) await releaseCredits(trx, { accountId: run.user_id, reference })
		else await commitCredits(trx, { accountId: run.user_id, reference, used })
	}
	await settle(
		enrichReference(run.id, run.attempt),
		run.credits_reserved,
		Number(calls) * run.credits_per_call,
	)
	// the Verify email steps: charged only for definitive answers, the rest refunded, once
	await settle(
		enrichVerifyReference(run.id, run.attempt),
		run.verify_credits_reserved,
		Number(verified) * run.verify_credits_per_check,
	)
}

/**
 * A run that ends before all its rows are written keeps the rows it has (its total becomes
 * their number), so its counts add up and "retry failed rows" takes exactly those.
 */
const stopPreparing = {
	total: sql<number>`case when prepared then total else prepared_rows end`,
	prepared: true,
}

/** Ends a run and settles its credits together; a run already ended is left alone. */
async function finish(
	run: Run,
	outcome: { ok: true } | { ok: false; error: string },
	executor: Kysely<DB> = db,
) {
	await inTransaction(executor, async (trx) => {
		const ended = await trx
			.updateTable('enrichment_runs')
			.set({
				status: outcome.ok ? JobStatus.success : JobStatus.fail,
				error: outcome.ok ? null : outcome.error,
				...stopPreparing,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', run.id)
			.where('status', 'in', [JobStatus.pending, JobStatus.processing])
			.returning('id')
			.executeTakeFirst()
		if (!ended) return
		await settleRunCredits(run, trx, !outcome.ok)
		await notifyJobEnd(trx, { kind: 'enrichment', id: run.id })
	})
}

async function toolsFor(run: Run): Promise<Tools> {
	const config = getConfig()
	let model: ModelClient | null = null
	let keyId = 'none'
	if (run.steps.some((s) => s.kind === 'ai')) {
		const provider = await modelProvider(
			run.user_id,
			run.key_kind === 'ownKey' ? 'ownKey' : 'credits',
		)
		if (!provider)
			throw new FatalRunError(
				run.key_kind === 'ownKey'
					? 'Your OpenAI-compatible key was removed. Add it again on the API keys page.'
					: 'The platform has no AI provider configured.',
			)
		model = createModelClient(provider)
		keyId = providerKeyId(provider)
	}
	let apollo: Tools['apollo'] = null
	if (run.steps.some((s) => s.kind === 'company-domain')) {
		const own = await getProviderKey(run.user_id, 'apollo')
		if (own)
			apollo = createApolloClient({
				baseUrl: config.APOLLO_BASE_URL,
				apiKey: own.key,
				windowWaits: config.APOLLO_WINDOW_WAIT_SECONDS,
			})
	}
	let checker: EmailChecker | null = null
	if (run.steps.some((s) => s.kind === 'verify-email')) {
		checker = await emailChecker(run.user_id, { paid: run.verify_credits_per_check > 0 })
		if (!checker) throw new FatalRunError(NO_VERIFIER_KEY)
	}
	return {
		model,
		keyId,
		pace: { pausedUntil: 0, limitedInARow: 0, downInARow: 0, downMessage: null },
		apollo,
		checker,
		cached: (hash) =>
			db
				.selectFrom('enrichment_cache')
				.select('output')
				.where('user_id', '=', run.user_id)
				.where('hash', '=', hash)
				.executeTakeFirst(),
	}
}

/**
 * Apollo's window is spent and the run waits in the queue until it ends (decision 0077): the
 * run says until when while it is running; its next checkpoint clears it.
 */
async function noteApolloWindow(runId: string, error: RunRateLimited, job: JobContext) {
	if (!pausesForWindow(error, job.windowPauses)) return
	await db
		.updateTable('enrichment_runs')
		.set({ error: error.message, updated_at: sql`now()` })
		.where('id', '=', runId)
		.where('status', '=', JobStatus.processing)
		.execute()
}

/**
 * The enrich job: every pending row of the run through its steps with bounded concurrency
 * and a rate limit per provider key; finished rows are written in batches together with
 * their status, so a re-run (after a crash or a stop) resumes with the rows still pending.
 * Stopping lets the calls in flight finish and be written before it gives the job back.
 */
export async function runEnrichment(runId: string, job: JobContext) {
	const run = await loadRun(runId)
	if (!run || run.status === JobStatus.success || run.status === JobStatus.fail) return
	await db
		.updateTable('enrichment_runs')
		.set({
			status: JobStatus.processing,
			started_at: sql`coalesce(started_at, now())`,
			updated_at: sql`now()`,
		})
		.where('id', '=', run.id)
		.where('status', '=', JobStatus.pending)
		.execute()
	const concurrency = getConfig().ENRICH_CONCURRENCY
	try {
		if (!run.prepared && !(await writeRunRows(run.id, job.signal))) return
		const tools = await toolsFor(run)
		let after: string | null = null
		let stopped = false
		while (!stopped) {
			if (!(await stillRunning(run.id))) return
			const leads: RunRow[] =
				run.source === 'companies'
					? ((await db
							.selectFrom('enrichment_company_rows as r')
							.innerJoin('companies as c', 'c.id', 'r.company_id')
							.select(COMPANY_FIELDS.map((f) => `c.${f}` as const))
							.where('r.run_id', '=', run.id)
							.where('r.status', 'in', [JobStatus.pending, JobStatus.processing])
							.$if(after !== null, (q) => q.where('r.company_id', '>', after!))
							.orderBy('r.company_id')
							.limit(PAGE_SIZE)
							.execute()) as RunRow[])
					: ((await db
							.selectFrom('enrichment_run_rows as r')
							.innerJoin('leads as l', 'l.id', 'r.lead_id')
							.select(LEAD_FIELDS.map((f) => `l.${f}` as const))
							.where('r.run_id', '=', run.id)
							.where('r.status', 'in', [JobStatus.pending, JobStatus.processing])
							.$if(after !== null, (q) => q.where('r.lead_id', '>', after!))
							.orderBy('r.lead_id')
							.limit(PAGE_SIZE)
							.execute()) as LeadRow[])
			if (leads.length === 0) break
			after = leads.at(-1)!.id
			await prefetchCache(run, leads, tools)

			let next = 0
			let buffer: RowResult[] = []
			let fatal: FatalRunError | RunRateLimited | null = null
			let cancelled = false
			let writing = Promise.resolve()
			let lastWrite = Date.now()
			const write = () => {
				const batch = buffer
				buffer = []
				lastWrite = Date.now()
				writing = writing.then(async () => {
					await flush(run, batch)
					if (!(await stillRunning(run.id))) cancelled = true
				})
				return writing
			}
			const worker = async () => {
				while (next < leads.length && !fatal && !cancelled && !job.signal.aborted) {
					const lead = leads[next++]!
					try {
						const result = await enrichRow(run, lead, tools, job.signal)
						if (result) buffer.push(result)
					} catch (error) {
						if (error instanceof FatalRunError || error instanceof RunRateLimited) fatal = error
						else throw error
					}
					// the provider is down: stop, rather than fail every row (issue 40)
					if (!fatal && tools.pace.downInARow >= PROVIDER_DOWN_ROWS)
						fatal = new FatalRunError(
							`The run stopped after ${PROVIDER_DOWN_ROWS} rows in a row failed: ${tools.pace.downMessage ?? 'the AI provider did not answer.'}${run.credits_reserved > 0 ? ' Rows not done are not charged; unused credits were refunded.' : ''} Retry the failed rows when the provider is back.`,
						)
					// written in the background, one batch after another; a failed write (the
					// database went away) is rethrown by the `await write()` below, so the
					// attempt fails and is retried: here it must not reject unhandled
					if (
						buffer.length >= FLUSH_ROWS ||
						(buffer.length > 0 && Date.now() - lastWrite >= FLUSH_MS)
					)
						write().catch(() => {})
				}
			}
			await Promise.all(Array.from({ length: Math.min(concurrency, leads.length) }, worker))
			await write()
			if (fatal) throw fatal
			if (cancelled) return
			if (job.signal.aborted) throw new Error('worker stopping')
			stopped = leads.length < PAGE_SIZE
		}
		await finish(run, { ok: true })
	} catch (error) {
		if (error instanceof FatalRunError) {
			await finish(run, { ok: false, error: (error as FatalRunError).message })
			return
		}
		// the worker puts the job back to wait, spending no attempt; its rows stay pending
		if (error instanceof RunRateLimited && retryLater(error, job, ENRICH_JOB_RETRY_LIMIT)) {
			await noteApolloWindow(run.id, error, job)
			throw error
		}
		if (error instanceof RunRateLimited) {
			await finish(run, {
				ok: false,
				error: error.resumeAt
					? "The run stopped: Apollo's request limit for this key stayed used up. Retry the failed rows later."
					: 'The run stopped: the AI provider kept rate limiting it. Retry the failed rows later.',
			})
			return
		}
		if (job.signal.aborted && job.retryCount < ENRICH_JOB_RETRY_LIMIT) throw error
		logger.error({ err: error, runId }, 'enrichment run failed')
		if (job.retryCount < ENRICH_JOB_RETRY_LIMIT) throw error
		await finish(run, {
			ok: false,
			error: 'Something went wrong while enriching. Retry the failed rows.',
		})
	}
}

/**
 * The job's first phase: writes the run's rows, one per lead its filter takes among the
 * leads created up to the run's cut-off, in batches by lead id. Each batch is written in one
 * transaction with the position it reached (the checkpoint), under a lock on the run, so a
 * worker that dies resumes after the last batch, and a cancel waits for a batch in flight
 * and then stops the next one. Never more rows than the run counted and holds credits for
 * (a lead an import was committing as the run started may match as well); fewer when leads
 * were deleted meanwhile, and the end of the run gives the unused credits back.
 * Returns false when the run ended (cancelled) before its rows were all written.
 */
export async function writeRunRows(runId: string, signal: AbortSignal) {
	for (let batchNumber = 1; ; batchNumber++) {
		if (signal.aborted) throw new Error('worker stopping')
		const state = await db.transaction().execute(async (trx) => {
			await lockRunRows(trx, runId)
			const run = await trx
				.selectFrom('enrichment_runs')
				.select([
					'list_id',
					'company_list_id',
					'user_id',
					'enrichment_id',
					'chain_id',
					'steps',
					'filter',
					'attempt',
					'total',
					'prepared',
					'leads_cutoff',
					'prepared_after',
					'prepared_rows',
				])
				.where('id', '=', runId)
				.where('status', 'in', [JobStatus.pending, JobStatus.processing])
				.forNoKeyUpdate()
				.executeTakeFirst()
			if (!run) return 'ended'
			if (run.prepared) return 'prepared'
			const room = run.total - run.prepared_rows
			const limit = Math.min(runRowsTuning.batchRows, room)
			let batch = { picked: 0, inserted: 0, last: null as string | null }
			if (limit > 0 && run.company_list_id) {
				batch = await writeCompanyRows(trx, runId, run, run.company_list_id, limit)
			} else if (limit > 0) {
				const target = {
					listId: run.list_id!,
					accountId: run.user_id,
					enrichmentId: run.enrichment_id,
					chainId: run.chain_id,
					outputColumns: [...new Set((run.steps as RunStep[]).map((s) => s.outputColumn))],
					runId,
				}
				const leads = filteredLeads(trx, target, (run.filter as RunFilter | null) ?? WHOLE_LIST)
					// compared in SQL: a JS Date would drop the cut-off's microseconds
					.$if(run.leads_cutoff !== null, (q) =>
						q.where(
							sql<boolean>`leads.created_at <= (select leads_cutoff from enrichment_runs where id = ${runId})`,
						),
					)
					.$if(run.prepared_after !== null, (q) => q.where('leads.id', '>', run.prepared_after!))
					.select('leads.id')
					// the list's index (list_id, id), not leads_pkey (decision 0034)
					.orderBy('leads.list_id')
					.orderBy('leads.id')
					.limit(limit)
				const { rows } = await sql<typeof batch>`
					with picked as (${leads}),
					inserted as (
						insert into enrichment_run_rows (run_id, lead_id, attempt)
						select ${runId}::uuid, id, ${run.attempt}::int from picked
						on conflict (run_id, lead_id) do nothing
						returning 1
					)
					select (select count(*) from picked)::int as picked,
						(select count(*) from inserted)::int as inserted,
						(select id from picked order by id desc limit 1) as last`.execute(trx)
				batch = rows[0]!
			}
			const written = run.prepared_rows + batch.inserted
			const done = batch.picked < limit || written >= run.total
			await trx
				.updateTable('enrichment_runs')
				.set({
					prepared_after: batch.last ?? run.prepared_after,
					prepared_rows: written,
					...(done ? { prepared: true, total: written } : {}),
					updated_at: sql`now()`,
				})
				.where('id', '=', runId)
				.execute()
			await runRowsHooks.beforeCommit?.(runId, batchNumber)
			return done ? 'prepared' : 'more'
		})
		if (state === 'ended') return false
		await runRowsHooks.afterCommit?.(runId, batchNumber)
		if (state === 'prepared') return true
	}
}

/**
 * One batch of a company run's rows: writeRunRows's batch for companies (the company list's
 * companies the filter takes, created up to the cut-off, after the checkpoint, by id).
 */
async function writeCompanyRows(
	trx: Kysely<DB>,
	runId: string,
	run: {
		user_id: string
		enrichment_id: string | null
		chain_id: string | null
		steps: unknown
		filter: unknown
		attempt: number
		leads_cutoff: Date | null
		prepared_after: string | null
	},
	companyListId: string,
	limit: number,
) {
	const target = {
		listId: companyListId,
		accountId: run.user_id,
		enrichmentId: run.enrichment_id,
		chainId: run.chain_id,
		outputColumns: [...new Set((run.steps as RunStep[]).map((s) => s.outputColumn))],
		runId,
	}
	const companies = filteredCompanies(trx, target, (run.filter as RunFilter | null) ?? WHOLE_LIST)
		.$if(run.leads_cutoff !== null, (q) =>
			q.where(
				sql<boolean>`companies.created_at <= (select leads_cutoff from enrichment_runs where id = ${runId})`,
			),
		)
		.$if(run.prepared_after !== null, (q) => q.where('companies.id', '>', run.prepared_after!))
		.select('companies.id')
		.orderBy('companies.id')
		.limit(limit)
	const { rows } = await sql<{ picked: number; inserted: number; last: string | null }>`
		with picked as (${companies}),
		inserted as (
			insert into enrichment_company_rows (run_id, company_id, attempt)
			select ${runId}::uuid, id, ${run.attempt}::int from picked
			on conflict (run_id, company_id) do nothing
			returning 1
		)
		select (select count(*) from picked)::int as picked,
			(select count(*) from inserted)::int as inserted,
			(select id from picked order by id desc limit 1) as last`.execute(trx)
	return rows[0]!
}

/**
 * The turn of one batch of a run's rows, or of a cancel. A row lock alone let a cancel starve:
 * each batch updates the run's row, so the cancel, woken on the old version, found the new one
 * locked again by the next batch (on a busy machine, up to the last one, and the calls began).
 * An advisory lock is handed to the first in line as it is released: the next batch waits.
 */
async function lockRunRows(trx: Kysely<DB>, runId: string) {
	await sql`select pg_advisory_xact_lock(hashtext(${`enrichment_run_rows:${runId}`}))`.execute(trx)
}

/** Runs still pending or running while no job of theirs is queued or running. */
export async function unfinishedRuns(quietSeconds: number) {
	const rows = await db
		.selectFrom('enrichment_runs as r')
		.select('r.id')
		.where('r.status', 'in', [JobStatus.pending, JobStatus.processing])
		.where(quietFor('r.updated_at', quietSeconds))
		.where(withoutLiveJob('enrich', sql`jsonb_build_object('runId', r.id)`))
		.execute()
	return rows.map((r) => ({ runId: r.id }))
}

/**
 * The sweep's end of a run whose job pg-boss will not run again (decision 0062): under the
 * run's lock, and only while still no job of it is queued or running, it fails with the
 * reason; the answers it paid for are charged, the rest of the hold comes back.
 */
export async function settleEndedRun(runId: string) {
	return db.transaction().execute(async (trx) => {
		await lockRunRows(trx, runId)
		const locked = await trx
			.selectFrom('enrichment_runs')
			.select('status')
			.where('id', '=', runId)
			.forUpdate()
			.executeTakeFirst()
		if (locked?.status !== JobStatus.pending && locked?.status !== JobStatus.processing)
			return false
		const job = await endedJob(trx, 'enrich', { runId })
		if (!job) return false
		const run = (await loadRun(runId, trx))!
		const refund = run.credits_reserved > 0 ? ' Unused credits were refunded.' : ''
		await finish(
			run,
			{
				ok: false,
				error: `The run stopped. ${whyEnded(job)}${refund} Retry the failed rows to go on.`,
			},
			trx,
		)
		return true
	})
}

/** Cancels a run that has not ended: the job stops at its next batch; used credits are kept. */
export async function cancelRunById(runId: string) {
	await db.transaction().execute(async (trx) => {
		await lockRunRows(trx, runId)
		const run = await trx
			.updateTable('enrichment_runs')
			.set({
				status: JobStatus.fail,
				error: 'Cancelled',
				...stopPreparing,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', runId)
			.where('status', 'in', [JobStatus.pending, JobStatus.processing])
			.returning([
				'id',
				'user_id',
				'attempt',
				'credits_reserved',
				'credits_per_call',
				'verify_credits_reserved',
				'verify_credits_per_check',
				'company_list_id',
			])
			.executeTakeFirst()
		if (run) await settleRunCredits({ ...run, source: sourceOf(run) }, trx, true)
	})
}
