import { sql, type Kysely } from 'kysely'
import { db } from '../../../db/index.server.ts'
import type { DB } from '../../../db/schema.ts'
import { getConfig } from '../../config.server.ts'
import {
	VERIFIER_LABELS,
	VerifierError,
	type VerifierName,
	type VerifyAnswer,
} from '../../integrations/email-verifiers.server.ts'
import type { JobContext } from '../../jobs/define.server.ts'
import { endedJob, quietFor, whyEnded, withoutLiveJob } from '../../jobs/ended.server.ts'
import {
	createMillionVerifierClient,
	isBulkUnsupported,
} from '../../integrations/millionverifier.server.ts'
import { logger } from '../../utils/logger.server.ts'
import { sleep } from '../../utils/patience.server.ts'
import { getProviderKey } from '../api-keys/get-provider-key.server.ts'
import { requestsPerSecond, verifierFor } from '../api-keys/verifier-for.server.ts'
import { commitCredits } from '../billing/credits.server.ts'
import { providerKeyId, takeSlot } from '../enrichments/rate-limit.server.ts'
import { CHARGED_STATUSES, type VerifyStatus } from './statuses.ts'
import { recordVerificationEnd } from '../webhooks/record.server.ts'

// The verify job (decision 0086): every pending row of a run, a page at a time; answers
// cached for the account are used free, the rest go to the provider in its batch size, with
// the key's rate limit shared by every process (decision 0016). Each request's answers are
// written at once, with the run's counts, in one transaction (the checkpoint): a worker
// killed mid-run loses at most the requests in flight, and the resumed job asks only for the
// rows still pending, so each email is checked once. Credits: the hold covers every email to
// check; the run is charged for definitive answers only, settled once when it ends.

export const VerifyState = { pending: 0, running: 1, done: 2, failed: 3 } as const
export const VERIFY_JOB_RETRY_LIMIT = 5
const PAGE_SIZE = 1000
/** tries of one request that fails because the provider is down or answers garbage */
const REQUEST_TRIES = 3
/** 429s in a row one request waits out before its emails are given up as unknown */
const RATE_LIMIT_TRIES = 20
/** requests in a row that fail for good before the run stops (the provider is down) */
const DOWN_REQUESTS = 3

export const verifyReference = (runId: string) => `verify:${runId}`

type Run = {
	id: string
	user_id: string
	provider: VerifierName
	key_kind: string
	status: number
	credits_reserved: number
	credits_per_check: number
}

type Row = { lead_id: string; email: string }

/** An answer for a row: from the provider, the cache, or a failure (unknown, with why). */
type Outcome = {
	leadId: string
	email: string
	status: VerifyStatus
	role: boolean
	raw: unknown
	error: string | null
	/** the provider answered for this email (false: a failure made it unknown) */
	answered: boolean
	cached: boolean
}

/**
 * Group commit: the writes asked for while one is in flight go together in the next one (one
 * transaction for all the requests that ended meanwhile), each caller waiting for the write
 * that holds its items. At 160 requests a second a transaction each is the bottleneck
 * (decision 0086's bench); this makes it about one per database round trip.
 */
function coalesced<T>(write: (items: T[]) => Promise<void>) {
	let queue: { items: T[]; resolve: () => void; reject: (error: unknown) => void }[] = []
	let busy = false
	const drain = async () => {
		busy = true
		while (queue.length) {
			const batch = queue
			queue = []
			try {
				await write(batch.flatMap((b) => b.items))
				for (const b of batch) b.resolve()
			} catch (error) {
				for (const b of batch) b.reject(error)
			}
		}
		busy = false
	}
	return (items: T[]) =>
		new Promise<void>((resolve, reject) => {
			queue.push({ items, resolve, reject })
			if (!busy) drain().catch(reject)
		})
}

/**
 * A run's writes of asked rows and of answers, each coalesced across its requests (group
 * commit). A request holds its place in the pool until its answers are written
 * (`answersBehind` waits while more than MAX_UNWRITTEN answers are unwritten): a killed worker
 * loses at most the requests in flight (the kill test holds it to VERIFY_CONCURRENCY). A failed
 * write stops the pool (`failure`); `flush` waits for every answer and rethrows it.
 */
type Writes = {
	asked: (rows: Row[]) => Promise<void>
	answers: (outcomes: Outcome[]) => Promise<void>
	answersBehind: (outcomes: Outcome[]) => Promise<void>
	flush: () => Promise<void>
	failure: () => unknown
}

/**
 * answers held unwritten before a request waits for their write: none (with 400 behind, a
 * kill -9 lost hundreds of answers the provider had given; 40 requests in flight cover the
 * write's latency at the provider's rate instead: decision 0099)
 */
const MAX_UNWRITTEN = 0

function writesFor(run: Run): Writes {
	const answers = coalesced((outcomes: Outcome[]) => record(run, outcomes))
	const inFlight = new Set<Promise<void>>()
	let unwritten = 0
	let failure: unknown = null
	return {
		asked: coalesced((rows) => markAsked(run.id, rows)),
		answers,
		async answersBehind(outcomes) {
			unwritten += outcomes.length
			const write = answers(outcomes)
				.catch((error: unknown) => void (failure ??= error))
				.finally(() => {
					unwritten -= outcomes.length
					inFlight.delete(write)
				})
			inFlight.add(write)
			if (unwritten > MAX_UNWRITTEN) await write
		},
		async flush() {
			while (inFlight.size) await Promise.all(inFlight)
			if (failure) throw failure
		},
		failure: () => failure,
	}
}

async function loadRun(runId: string, executor: Kysely<DB> = db): Promise<Run | undefined> {
	return (await executor
		.selectFrom('verification_runs')
		.select([
			'id',
			'user_id',
			'provider',
			'key_kind',
			'status',
			'credits_reserved',
			'credits_per_check',
		])
		.where('id', '=', runId)
		.executeTakeFirst()) as Run | undefined
}

/**
 * Writes outcomes: the account's cache (real answers other than unknown), the leads' status
 * (a failure never replaces an earlier answer), the run's rows and counts. Under the run's
 * lock: a run that ended meanwhile (cancelled) keeps its settled counts and charges nothing.
 */
async function record(run: Run, outcomes: Outcome[]) {
	if (outcomes.length === 0) return
	await db.transaction().execute(async (trx) => {
		const live = await trx
			.selectFrom('verification_runs')
			.select(['status', 'charged'])
			.where('id', '=', run.id)
			.forUpdate()
			.executeTakeFirstOrThrow()
		const running = live.status === VerifyState.pending || live.status === VerifyState.running
		// never charged past the hold (an answer cached at start that expired since is free)
		let room =
			run.credits_per_check > 0
				? Math.floor(run.credits_reserved / run.credits_per_check) - live.charged
				: 0
		const rows = outcomes.map((o) => {
			const charge =
				running &&
				run.key_kind === 'credits' &&
				o.answered &&
				!o.cached &&
				CHARGED_STATUSES.includes(o.status) &&
				room > 0
			if (charge) room -= 1
			return {
				lead_id: o.leadId,
				email: o.email,
				status: o.status,
				role: o.role,
				raw: o.raw ?? null,
				error: o.error,
				answered: o.answered,
				cached: o.cached,
				charged: charge,
			}
		})
		const json = JSON.stringify(rows)
		const fresh = rows.filter((r) => r.answered && !r.cached && r.status !== 'unknown')
		if (fresh.length)
			await sql`
				insert into email_checks (user_id, email, provider, status, role, raw, checked_at)
				select distinct on (v.email) ${run.user_id}::uuid, v.email, ${run.provider}, v.status, v.role, v.raw, now()
				from jsonb_to_recordset(${JSON.stringify(fresh)}::jsonb) as v(email text, status text, role boolean, raw jsonb)
				on conflict (user_id, email) do update set provider = excluded.provider,
					status = excluded.status, role = excluded.role, raw = excluded.raw, checked_at = now()`.execute(trx)
		await sql`
			update leads l set
				verify_status = case when v.answered then v.status else coalesce(l.verify_status, v.status) end,
				verify_role = case when v.answered then v.role else l.verify_role end,
				verify_raw = case when v.answered then v.raw else l.verify_raw end,
				verify_provider = case when v.answered then ${run.provider} else l.verify_provider end,
				verified_at = case when v.answered then now() else l.verified_at end
			from jsonb_to_recordset(${json}::jsonb)
				as v(lead_id uuid, status text, role boolean, raw jsonb, answered boolean)
			where l.id = v.lead_id`.execute(trx)
		if (!running) return
		const { rows: done } = await sql<{ cached: boolean; charged: boolean }>`
			update verification_run_rows r set state = 2, result = v.status, error = v.error,
				cached = v.cached, charged = v.charged
			from jsonb_to_recordset(${json}::jsonb)
				as v(lead_id uuid, status text, error text, cached boolean, charged boolean)
			where r.run_id = ${run.id} and r.lead_id = v.lead_id and r.state < 2
			returning r.cached, r.charged`.execute(trx)
		await trx
			.updateTable('verification_runs')
			.set({
				checked: sql`checked + ${done.length}`,
				cached: sql`cached + ${done.filter((d) => d.cached).length}`,
				charged: sql`charged + ${done.filter((d) => d.charged).length}`,
				updated_at: sql`now()`,
			})
			.where('id', '=', run.id)
			.execute()
	})
}

/**
 * Ends a run that has not ended (done, failed, cancelled) and settles its credits: the
 * definitive answers it charged are spent, the rest of the hold comes back, once (the
 * ledger's reference). False when it had ended already.
 */
export async function settleVerification(
	runId: string,
	end: { state: number; error?: string | null },
	executor: Kysely<DB> = db,
) {
	const work = async (trx: Kysely<DB>) => {
		const run = await trx
			.updateTable('verification_runs')
			.set({
				status: end.state,
				error: end.error ?? null,
				finished_at: sql`now()`,
				updated_at: sql`now()`,
			})
			.where('id', '=', runId)
			.where('status', 'in', [VerifyState.pending, VerifyState.running])
			.returning(['user_id', 'charged', 'credits_reserved', 'credits_per_check'])
			.executeTakeFirst()
		if (!run) return false
		await recordVerificationEnd(trx, runId)
		if (run.credits_reserved > 0)
			await commitCredits(trx, {
				accountId: run.user_id,
				reference: verifyReference(runId),
				used: Math.min(run.credits_reserved, run.charged * run.credits_per_check),
			})
		return true
	}
	return executor.isTransaction ? work(executor) : db.transaction().execute(work)
}

/** Why a run stops early, with the sentence the person reads. */
class StopRun extends Error {
	/** the emails not checked yet become unknown (the provider's account has no credits) */
	readonly failRest: boolean
	constructor(message: string, failRest: boolean) {
		super(message)
		this.failRest = failRest
	}
}

type Pace = { pausedUntil: number; downInARow: number; stop: StopRun | null }

/** The run's client, its key's name in the shared limiter and the key's requests per second. */
async function toolsFor(run: Run) {
	const config = getConfig()
	const label = VERIFIER_LABELS[run.provider]
	let key: { key: string; baseUrl: string | null } | null
	if (run.key_kind === 'ownKey') {
		key = await getProviderKey(run.user_id, run.provider)
		if (!key)
			throw new StopRun(
				`Your ${label} key was deleted. Add it again on the API keys page, then verify again. Nothing was charged.`,
				false,
			)
	} else {
		const platform =
			run.provider === 'millionverifier'
				? config.MILLIONVERIFIER_API_KEY
				: run.provider === 'zerobounce'
					? config.ZEROBOUNCE_API_KEY
					: config.REACHER_API_KEY
		if (!platform)
			throw new StopRun(`${label} is not configured on this server. Nothing was charged.`, false)
		key = { key: platform, baseUrl: null }
	}
	const verifier = verifierFor(run.provider, key)
	const bulkFiles =
		run.provider === 'millionverifier'
			? createMillionVerifierClient({
					baseUrl: config.MILLIONVERIFIER_BASE_URL,
					bulkUrl: config.MILLIONVERIFIER_BULK_URL,
					apiKey: key.key,
				})
			: null
	const base =
		key.baseUrl ??
		(run.provider === 'millionverifier'
			? config.MILLIONVERIFIER_BASE_URL
			: run.provider === 'zerobounce'
				? config.ZEROBOUNCE_BULK_URL
				: config.REACHER_BASE_URL)
	return {
		verifier,
		bulkFiles,
		keyId: providerKeyId({ baseUrl: base, apiKey: key.key }),
		perSecond: requestsPerSecond(run.provider),
	}
}

/** A provider's answer for a row, from a single check or a file's report; none: unknown, why. */
function answered(row: Row, answer: VerifyAnswer | undefined, missing: string): Outcome {
	if (!answer) return failed(row, missing)
	return {
		leadId: row.lead_id,
		email: row.email,
		status: answer.status,
		role: answer.role,
		raw: answer.raw,
		error: answer.error ?? null,
		answered: true,
		cached: false,
	}
}

function failed(row: Row, message: string): Outcome {
	return {
		leadId: row.lead_id,
		email: row.email,
		status: 'unknown',
		role: false,
		raw: null,
		error: message,
		answered: false,
		cached: false,
	}
}

/** One request for a chunk of emails, waiting out 429s and trying a failing provider again. */
async function checkChunk(
	run: Run,
	chunk: Row[],
	tools: Awaited<ReturnType<typeof toolsFor>>,
	pace: Pace,
	signal: AbortSignal,
	writes: Writes,
) {
	const label = VERIFIER_LABELS[run.provider]
	let limited = 0
	for (let attempt = 1; ;) {
		if (pace.stop) return
		const pause = pace.pausedUntil - Date.now()
		if (pause > 0) await sleep(pause, signal)
		if (signal.aborted) return
		// asked, before asking: a worker killed while the provider works on these is not followed
		// by a second request for them (the provider checks, and may bill, each email once). The
		// mark is written while the slot is waited for, so its round trips cost no request time.
		await Promise.all([
			takeSlot(tools.keyId, tools.perSecond, signal),
			attempt === 1 && limited === 0 ? writes.asked(chunk) : null,
		])
		if (signal.aborted) return
		let answers: VerifyAnswer[]
		try {
			// not aborted when the worker stops: a request in flight finishes and is written (a
			// graceful stop loses no answer the provider gave)
			answers = await tools.verifier.verify(chunk.map((r) => r.email))
		} catch (error) {
			const e =
				error instanceof VerifierError
					? error
					: new VerifierError('other', `${label} failed unexpectedly.`)
			if (!(error instanceof VerifierError)) logger.error({ err: error }, 'verification failed')
			if (e.kind === 'key' || e.kind === 'url') {
				pace.stop ??= new StopRun(
					`${e.message} Check the key on the API keys page, then verify again. Unchecked emails were not charged.`,
					false,
				)
				return
			}
			if (e.kind === 'credits') {
				await writes.answers(
					chunk.map((r) => failed(r, `${e.message} This email was not checked and not charged.`)),
				)
				pace.stop ??= new StopRun(
					`${e.message} The emails not checked are marked unknown and were not charged.`,
					true,
				)
				return
			}
			if (e.kind === 'rate-limited' && limited < RATE_LIMIT_TRIES) {
				limited += 1
				const wait = (e.retryAfterSeconds ?? Math.min(30, 2 ** limited)) * 1000
				pace.pausedUntil = Math.max(pace.pausedUntil, Date.now() + wait)
				continue
			}
			if (e.retryable && attempt < REQUEST_TRIES && pace.downInARow === 0) {
				attempt += 1
				await sleep(500 * 2 ** (attempt - 2), signal)
				continue
			}
			// given up: these emails are unknown (free), with the reason, and the run's summary says so
			await writes.answers(
				chunk.map((r) => failed(r, `${e.message} Not charged; verify it again later.`)),
			)
			await addNote(
				run.id,
				`${e.message} The emails it could not check are marked unknown and were not charged; verify again later to check them.`,
			)
			pace.downInARow += 1
			if (pace.downInARow >= DOWN_REQUESTS)
				pace.stop ??= new StopRun(
					`The run stopped after ${DOWN_REQUESTS} requests in a row failed: ${e.message} Emails not checked were not charged; verify again later.`,
					false,
				)
			return
		}
		pace.downInARow = 0
		const byEmail = new Map(answers.map((a) => [a.email.toLowerCase(), a]))
		await writes.answersBehind(
			chunk.map((row) =>
				answered(
					row,
					byEmail.get(row.email),
					`${label} gave no answer for this email. Not charged.`,
				),
			),
		)
		return
	}
}

/**
 * Marks rows asked, durably (synchronous_commit on, whatever the server's default): a relaxed
 * commit lost in a database crash would put them back to pending, and the resumed job would
 * ask the provider again (the database-restart fault test caught it).
 */
async function markAsked(runId: string, chunk: Row[], fileName?: string) {
	await db.transaction().execute(async (trx) => {
		await sql`set local synchronous_commit = on`.execute(trx)
		if (fileName)
			await trx
				.updateTable('verification_runs')
				.set({ bulk_file_name: fileName, bulk_file_id: null })
				.where('id', '=', runId)
				.execute()
		await trx
			.updateTable('verification_run_rows')
			.set({ state: 1 })
			.where('run_id', '=', runId)
			.where(
				'lead_id',
				'in',
				chunk.map((r) => r.lead_id),
			)
			.where('state', '=', 0)
			.execute()
	})
}

export const INTERRUPTED =
	'The check was interrupted (the worker running it stopped) and is not asked again, so the provider checks each email once. Not charged; verify again to check it.'

async function stillRunning(runId: string) {
	const row = await db
		.selectFrom('verification_runs')
		.select('status')
		.where('id', '=', runId)
		.executeTakeFirst()
	return row?.status === VerifyState.running
}

/**
 * The run's pending rows as the provider's request chunks, a page at a time (the next page read
 * while the current one is asked): emails answered for the account in the last
 * VERIFY_CACHE_DAYS are recorded free on the way and never become a request. `ended()`: the
 * run stopped running (cancelled) and no more chunks come.
 */
function pendingChunks(run: Run, batchSize: number, cacheDays: number) {
	let after: string | null = null
	let done = false
	let ended = false
	const chunks: Row[][] = []
	let reading: Promise<void> | null = null
	const readPage = async () => {
		if (!(await stillRunning(run.id))) {
			done = ended = true
			return
		}
		const rows: Row[] = await db
			.selectFrom('verification_run_rows')
			.select(['lead_id', 'email'])
			.where('run_id', '=', run.id)
			.where('state', '=', 0)
			.$if(after !== null, (q) => q.where('lead_id', '>', after!))
			.orderBy('lead_id')
			.limit(PAGE_SIZE)
			.execute()
		if (rows.length === 0) {
			done = true
			return
		}
		after = rows.at(-1)!.lead_id
		const hits = await db
			.selectFrom('email_checks')
			.select(['email', 'status', 'role', 'raw'])
			.where('user_id', '=', run.user_id)
			.where(
				'email',
				'in',
				rows.map((r) => r.email),
			)
			.where(sql<boolean>`checked_at > now() - make_interval(days => ${cacheDays})`)
			.execute()
		const cache = new Map(hits.map((h) => [h.email, h]))
		await record(
			run,
			rows
				.filter((r) => cache.has(r.email))
				.map((r): Outcome => {
					const hit = cache.get(r.email)!
					return {
						leadId: r.lead_id,
						email: r.email,
						status: hit.status as VerifyStatus,
						role: hit.role,
						raw: hit.raw,
						error: null,
						answered: true,
						cached: true,
					}
				}),
		)
		const todo = rows.filter((r) => !cache.has(r.email))
		for (let i = 0; i < todo.length; i += batchSize) chunks.push(todo.slice(i, i + batchSize))
	}
	const read = () =>
		(reading ??= readPage().finally(() => {
			reading = null
		}))
	return {
		ended: () => ended,
		async next(): Promise<Row[] | null> {
			for (;;) {
				const chunk = chunks.shift()
				// read ahead while a quarter of a page is left
				if (!done && chunks.length * batchSize < PAGE_SIZE / 4) void read().catch(() => {})
				if (chunk) return chunk
				if (done) return null
				await read()
				if (chunks.length === 0 && done) return null
			}
		},
	}
}

/** emails a bulk file holds */
const BULK_FILE_EMAILS = 10_000
/** seconds between polls of a file's status, growing to at most this */
const BULK_POLL_MAX_SECONDS = 30

/**
 * A MillionVerifier run large enough (MILLIONVERIFIER_BULK_MIN emails still to check), or one
 * already waiting for a file (a resumed job), goes through the bulk file API.
 */
async function goesThroughFiles(run: Run) {
	const min = getConfig().MILLIONVERIFIER_BULK_MIN
	const row = await db
		.selectFrom('verification_runs')
		.select('bulk_file_name')
		.where('id', '=', run.id)
		.executeTakeFirstOrThrow()
	if (row.bulk_file_name) return true
	if (min === 0) return false
	const { pending } = await db
		.selectFrom('verification_run_rows')
		.select((eb) => eb.fn.countAll<number>().as('pending'))
		.where('run_id', '=', run.id)
		.where('state', '=', 0)
		.executeTakeFirstOrThrow()
	return pending >= min
}

type BulkClient = NonNullable<Awaited<ReturnType<typeof toolsFor>>['bulkFiles']>

/**
 * The run's emails through MillionVerifier's bulk file API (decision 0099), a file of up to
 * BULK_FILE_EMAILS at a time: its rows marked asked and its name written (durably) before the
 * upload, its id once given; polled until finished; its report recorded as the single answers
 * are. A resumed job finds its file by the id, or by the name when the upload's answer was
 * lost, and uploads nothing twice. 'unsupported': the file API is not there (rows back to
 * pending, the caller checks them singly).
 */
async function bulkPass(
	run: Run,
	client: BulkClient,
	cacheDays: number,
	signal: AbortSignal,
): Promise<'done' | 'cancelled' | 'unsupported'> {
	const label = VERIFIER_LABELS[run.provider]
	const source = pendingChunks(run, PAGE_SIZE, cacheDays)
	const collect = async () => {
		const rows: Row[] = []
		while (rows.length < BULK_FILE_EMAILS) {
			const chunk = await source.next()
			if (!chunk) break
			rows.push(...chunk)
		}
		return rows
	}
	// the next file's rows, read (nothing written but cached answers) while the provider works
	// on this one: between two files only the asked mark and the upload (decision 0106)
	let nextRows: Promise<Row[]> | null = null
	// the last file's report, written once the next file is up (the provider works meanwhile)
	let report: VerifyAnswer[] | null = null
	const missing = `${label} gave no answer for this email. Not charged.`
	for (;;) {
		const file = await db
			.selectFrom('verification_runs')
			.select(['bulk_file_name', 'bulk_file_id', 'bulk_report_file_id'])
			.where('id', '=', run.id)
			.executeTakeFirstOrThrow()
		if (file.bulk_report_file_id && !report) {
			// a resumed job: the report of a file whose answers were not all written
			const answers = await client.download(file.bulk_report_file_id).catch((error: unknown) => {
				throw stopFor(error, label) ?? error
			})
			await recordReport(run, answers)
			await setFile(run.id, file.bulk_file_name, file.bulk_file_id, null)
		}
		let fileId = file.bulk_file_id
		if (file.bulk_file_name && !fileId) {
			// the upload's answer was lost (a crash, a timeout): the file, if the provider has it
			fileId = await client.findFile(file.bulk_file_name).catch((error: unknown) => {
				throw stopFor(error, label) ?? error
			})
			if (fileId) await setFile(run.id, file.bulk_file_name, fileId)
			else await unask(run.id)
		}
		if (!fileId) {
			// read ahead during the last file's wait, or now; replaced after this upload
			const rows = await (nextRows ?? collect())
			if (source.ended()) return 'cancelled'
			if (rows.length === 0) {
				// the last file: its rows the report has no answer for are unknown
				if (report) await answerFile(run, report, missing)
				await setFile(run.id, null, null, null)
				return 'done'
			}
			const name = `leadsmith-${run.id}-${Date.now()}.txt`
			await markAsked(run.id, rows, name)
			try {
				fileId = await client.uploadFile(
					rows.map((r) => r.email),
					name,
				)
			} catch (error) {
				// the last file's answers are written whatever comes next
				if (report) {
					await recordReport(run, report)
					await setFile(run.id, name, null, null)
				}
				if (isBulkUnsupported(error)) {
					logger.warn({ err: error, runId: run.id }, 'bulk file API not available: single checks')
					await unask(run.id)
					await addNote(
						run.id,
						`${label}'s bulk service wasn't available, so the emails were checked one by one (the same price, only slower).`,
					)
					return 'unsupported'
				}
				throw stopFor(error, label) ?? error
			}
			await setFile(run.id, name, fileId)
			nextRows = collect()
			// awaited on the next turn; a run that stops first leaves it unread
			nextRows.catch(() => {})
			if (report) {
				await recordReport(run, report)
				await setFile(run.id, name, fileId, null)
				report = null
			}
		}
		// poll until the provider has checked the file; an answer that is garbage or late is
		// asked again, and the file's emails become unknown (free) when it stays so
		let failedFile = false
		let flaky = 0
		// how fast the provider goes through the file, from its percent: the next poll is when it
		// should be done, rather than up to 30 s after (the bench's file path within 1.2x)
		let seen: { at: number; percent: number } | null = null
		const giveUp = async (why: string) => {
			failedFile = true
			await answerFile(run, null, `${why} Not charged; verify it again later.`)
			await addNote(
				run.id,
				`${why} The emails of that file are marked unknown and were not charged; verify again later to check them.`,
			)
		}
		for (let wait = 1; ; wait = Math.min(BULK_POLL_MAX_SECONDS, wait * 2)) {
			if (signal.aborted) throw new Error('worker stopping')
			if (!(await stillRunning(run.id))) return 'cancelled'
			let state: Awaited<ReturnType<BulkClient['fileInfo']>> | null = null
			try {
				state = await client.fileInfo(fileId)
				flaky = 0
			} catch (error) {
				const stop = stopFor(error, label)
				if (stop || !(error instanceof VerifierError) || !error.retryable) throw stop ?? error
				if (++flaky >= REQUEST_TRIES * 2) {
					await giveUp(error.message)
					break
				}
			}
			if (state?.status === 'finished') break
			if (state?.status === 'failed') {
				await giveUp(`${label} stopped checking the file.`)
				break
			}
			let next = wait * 1000
			if (state && seen && state.percent > seen.percent && state.percent < 100) {
				const left =
					((100 - state.percent) * (Date.now() - seen.at)) / (state.percent - seen.percent)
				next = Math.min(next, Math.max(500, left + 100))
			}
			if (state && (!seen || state.percent === 0)) seen = { at: Date.now(), percent: state.percent }
			await sleep(next, signal)
		}
		if (!failedFile && (await stillRunning(run.id))) {
			let answers: VerifyAnswer[] | null = null
			for (let attempt = 1; !answers; attempt++) {
				try {
					answers = await client.download(fileId)
				} catch (error) {
					const stop = stopFor(error, label)
					if (stop || !(error instanceof VerifierError) || !error.retryable) throw stop ?? error
					if (attempt >= REQUEST_TRIES) {
						await giveUp(error.message)
						break
					}
					await sleep(1000 * attempt, signal)
				}
			}
			if (answers) {
				// written after the next file's upload, kept by its id until then
				report = answers
				await setFile(run.id, null, null, fileId)
				continue
			}
		}
		await setFile(run.id, null, null)
	}
}

/**
 * Writes the answers a file's report has for the run's asked rows (the next file's rows, asked
 * too, are not in it and are left as they are; a row of the file the report misses is answered
 * unknown with the next file's, or at the end).
 */
async function recordReport(run: Run, answers: VerifyAnswer[]) {
	const byEmail = new Map(answers.map((a) => [a.email.toLowerCase(), a]))
	let after: string | null = null
	for (;;) {
		const page: Row[] = await db
			.selectFrom('verification_run_rows')
			.select(['lead_id', 'email'])
			.where('run_id', '=', run.id)
			.where('state', '=', 1)
			.$if(after !== null, (q) => q.where('lead_id', '>', after!))
			.orderBy('lead_id')
			.limit(BULK_FILE_EMAILS / 2)
			.execute()
		if (page.length === 0) return
		after = page.at(-1)!.lead_id
		const found = page.filter((row) => byEmail.has(row.email.toLowerCase()))
		await record(
			run,
			found.map((row) => answered(row, byEmail.get(row.email.toLowerCase()), '')),
		)
	}
}

/** A provider error that ends the run (a refused key, no credits), else null (retried). */
function stopFor(error: unknown, label: string): StopRun | null {
	if (!(error instanceof VerifierError)) return null
	if (error.kind === 'key' || error.kind === 'url')
		return new StopRun(
			`${error.message} Check the key on the API keys page, then verify again. Unchecked emails were not charged.`,
			false,
		)
	if (error.kind === 'credits')
		return new StopRun(
			`${error.message} The emails not checked are marked unknown and were not charged.`,
			true,
		)
	if (error.kind === 'other' || error.kind === 'unavailable')
		logger.warn({ err: error }, `${label} bulk file call failed`)
	return null
}

/** The file the run waits for; `report`: the file whose report is not all written yet. */
async function setFile(
	runId: string,
	name: string | null,
	fileId: string | null,
	report?: string | null,
) {
	await db.transaction().execute(async (trx) => {
		await sql`set local synchronous_commit = on`.execute(trx)
		await trx
			.updateTable('verification_runs')
			.set({
				bulk_file_name: name,
				bulk_file_id: fileId,
				...(report !== undefined ? { bulk_report_file_id: report } : {}),
				updated_at: sql`now()`,
			})
			.where('id', '=', runId)
			.execute()
	})
}

/**
 * A sentence on the run's summary (what it did differently from what was asked, in words the
 * person understands: decision 0106), once however many requests hit the same fault.
 */
async function addNote(runId: string, note: string) {
	await db
		.updateTable('verification_runs')
		.set({ notes: sql`array_append(notes, ${note})` })
		.where('id', '=', runId)
		.where(sql<boolean>`not (${note} = any(notes))`)
		.execute()
}

/** The rows of a file the provider never got: pending again, and no file. */
async function unask(runId: string) {
	await db.transaction().execute(async (trx) => {
		await trx
			.updateTable('verification_run_rows')
			.set({ state: 0 })
			.where('run_id', '=', runId)
			.where('state', '=', 1)
			.execute()
		await trx
			.updateTable('verification_runs')
			.set({ bulk_file_name: null, bulk_file_id: null })
			.where('id', '=', runId)
			.execute()
	})
}

/** The asked rows of the run's file, answered from its report (null: the file failed). */
async function answerFile(run: Run, answers: VerifyAnswer[] | null, missing: string) {
	const byEmail = new Map((answers ?? []).map((a) => [a.email.toLowerCase(), a]))
	// a file's worth in a few transactions, not ten
	await recordRows(
		run,
		'asked',
		(row) => answered(row, byEmail.get(row.email.toLowerCase()), missing),
		BULK_FILE_EMAILS / 2,
	)
}

/**
 * Records an outcome for each of the run's rows that are asked (or not answered yet: `open`),
 * a page at a time, until none is left or the run stopped running (a cancelled run's rows
 * stay as the cancel left them).
 */
async function recordRows(
	run: Run,
	rows: 'asked' | 'open',
	outcome: (row: Row) => Outcome,
	pageSize = PAGE_SIZE,
) {
	for (;;) {
		const page = await db
			.selectFrom('verification_run_rows')
			.select(['lead_id', 'email'])
			.where('run_id', '=', run.id)
			.$if(rows === 'asked', (q) => q.where('state', '=', 1))
			.$if(rows === 'open', (q) => q.where('state', '<', 2))
			.limit(pageSize)
			.execute()
		if (page.length === 0) return
		await record(run, page.map(outcome))
		if (!(await stillRunning(run.id))) return
	}
}

/** The verify job: see the top of this file. */
export async function runVerification(runId: string, job: JobContext) {
	const run = await loadRun(runId)
	if (!run || (run.status !== VerifyState.pending && run.status !== VerifyState.running)) return
	await db
		.updateTable('verification_runs')
		.set({ status: VerifyState.running, started_at: sql`coalesce(started_at, now())` })
		.where('id', '=', run.id)
		.where('status', '=', VerifyState.pending)
		.execute()
	const pace: Pace = { pausedUntil: 0, downInARow: 0, stop: null }
	try {
		const tools = await toolsFor(run)
		const cacheDays = getConfig().VERIFY_CACHE_DAYS
		const concurrency = getConfig().VERIFY_CONCURRENCY
		const writes = writesFor(run)
		if (tools.bulkFiles && (await goesThroughFiles(run))) {
			const bulk = await bulkPass(run, tools.bulkFiles, cacheDays, job.signal)
			if (bulk === 'cancelled') return
			// 'unsupported': the rest goes through single checks below
		}
		const source = pendingChunks(run, tools.verifier.batchSize, cacheDays)
		// one pool of requests for the whole run: a page's last requests overlap the next page's
		// first ones, and the next page is read while the current one is asked
		// a failure (the database away) stops every request of the pool before the job ends, so
		// no request of this attempt is still running when the retry starts
		let poolError: unknown = null
		const worker = async () => {
			try {
				while (!pace.stop && !job.signal.aborted && !writes.failure() && !poolError) {
					const chunk = await source.next()
					if (!chunk) return
					await checkChunk(run, chunk, tools, pace, job.signal, writes)
				}
			} catch (error) {
				poolError ??= error
			}
		}
		await Promise.all(Array.from({ length: concurrency }, worker))
		await writes.flush()
		if (poolError) throw poolError
		if (job.signal.aborted) throw new Error('worker stopping')
		if (pace.stop) throw pace.stop
		// cancelled meanwhile: the cancel settled it
		if (source.ended()) return
		// asked by a worker that stopped before the answer came: unknown, not asked twice
		await failRest(run, INTERRUPTED)
		await settleVerification(run.id, { state: VerifyState.done })
	} catch (error) {
		if (error instanceof StopRun) {
			if (error.failRest) await failRest(run, error.message)
			await settleVerification(run.id, { state: VerifyState.failed, error: error.message })
			return
		}
		// the worker stopping, the database away: the job is retried and resumes
		if (job.retryCount < VERIFY_JOB_RETRY_LIMIT) throw error
		logger.error({ err: error, runId }, 'verification run failed')
		await settleVerification(run.id, {
			state: VerifyState.failed,
			error: 'Something went wrong while verifying. Emails not checked were not charged.',
		})
	}
}

/** The rows still pending become unknown with the reason (never replacing a lead's answer). */
async function failRest(run: Run, message: string) {
	await recordRows(run, 'open', (row) => failed(row, message))
}

/** Runs still pending or running while no job of theirs is queued or running. */
export async function unfinishedVerifications(quietSeconds: number) {
	const rows = await db
		.selectFrom('verification_runs as r')
		.select('r.id')
		.where('r.status', 'in', [VerifyState.pending, VerifyState.running])
		.where(quietFor('r.updated_at', quietSeconds))
		.where(withoutLiveJob('verify', sql`jsonb_build_object('runId', r.id)`))
		.execute()
	return rows.map((r) => ({ runId: r.id }))
}

/** The sweep's end of a run whose job will not run again: failed, credits settled once. */
export async function settleEndedVerification(runId: string) {
	return db.transaction().execute(async (trx) => {
		// the run's lock first: a retry queues its job while holding it (see endedJob); a run
		// that ended meanwhile is left as it is by settleVerification
		await trx
			.selectFrom('verification_runs')
			.select('id')
			.where('id', '=', runId)
			.forUpdate()
			.execute()
		const job = await endedJob(trx, 'verify', { runId })
		const error = job
			? `The run stopped. ${whyEnded(job)} Emails not checked were not charged; verify again to go on.`
			: null
		return error !== null && settleVerification(runId, { state: VerifyState.failed, error }, trx)
	})
}
