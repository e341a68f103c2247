import { z } from 'zod'
import { sleep } from '../utils/patience.server.ts'
import { createHttpClient, HttpError, MalformedAnswerError, NetworkError } from './http.server.ts'

// Apify's REST API v2 (reference/emailbison-apify-apollo.md): start a run,
// long-poll it, page its dataset, abort it. Knows nothing of lists or credits.
// As the service behaves (docs.apify.com/api/v2 and the official apify-client-js):
// - 402 `actor-memory-limit-exceeded` / `concurrent-runs-limit-exceeded`: the token's runs
//   hold all its memory (or run slots) right now; capacity frees as they end: wait, retry.
// - a run just started may answer 404 for a moment (the client's waitForFinish retries it:
//   "database replicas" lag), so a 404 on a run is retried for a bounded time.
// - dataset items with clean=1 skip empty items, so a page can be shorter than the limit
//   with more after it: pages go by offset + limit until X-Apify-Pagination-Total.
// - every answer a job relies on is checked (zod): a 200 that is not the documented shape
//   is a transient failure, never an empty result.

export type ApifyRunStatus =
	'READY' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMING-OUT' | 'TIMED-OUT' | 'ABORTING' | 'ABORTED'

export type ApifyRun = {
	id: string
	status: ApifyRunStatus
	defaultDatasetId: string
	defaultKeyValueStoreId?: string
	startedAt?: string | null
	finishedAt?: string | null
	statusMessage?: string | null
}

const FINISHED: ApifyRunStatus[] = ['SUCCEEDED', 'FAILED', 'TIMED-OUT', 'ABORTED']

/** A failure with a message a person can act on. */
export class ApifyError extends Error {
	readonly kind:
		| 'token'
		| 'permission'
		| 'input'
		| 'run-failed'
		| 'timed-out'
		| 'aborted'
		| 'rate-limited'
		| 'unavailable'
		| 'other'
	readonly retryAfterSeconds: number | undefined

	constructor(kind: ApifyError['kind'], message: string, retryAfterSeconds?: number) {
		super(message)
		this.name = 'ApifyError'
		this.kind = kind
		this.retryAfterSeconds = retryAfterSeconds
	}

	/** rate limits and outages pass; a bad token or a failed run does not */
	get retryable() {
		return this.kind === 'rate-limited' || this.kind === 'unavailable'
	}
}

/** 402 types that mean "too much running on this token right now", not "never" */
const CAPACITY_TYPES = new Set(['actor-memory-limit-exceeded', 'concurrent-runs-limit-exceeded'])

function describe(error: unknown, capacityRetrySeconds: number): ApifyError {
	if (error instanceof ApifyError) return error
	if (error instanceof NetworkError)
		return new ApifyError('unavailable', 'Apify could not be reached. We will try again.')
	// the cause kept: a job that gives up says what was wrong, not "could not be reached"
	if (error instanceof MalformedAnswerError)
		return Object.assign(
			new ApifyError(
				'unavailable',
				`Apify sent an answer that is not what its API documents (${error.problems.join('; ')}).`,
			),
			{ cause: error },
		)
	if (!(error instanceof HttpError)) return new ApifyError('other', String(error))
	const body = error.body as { error?: { type?: string; message?: string } } | undefined
	const type = body?.error?.type
	const detail = body?.error?.message
	if (type && CAPACITY_TYPES.has(type)) {
		// waited out like a rate limit: runs of this token end and free their memory
		return new ApifyError(
			'rate-limited',
			'Apify has no room for another run on this token right now (too many runs at once). We wait for room and try again.',
			error.retryAfterSeconds ?? capacityRetrySeconds,
		)
	}
	if (error.status === 401 || type === 'token-not-valid' || type === 'user-or-token-not-found') {
		return new ApifyError(
			'token',
			'The Apify API token is not valid. Check it on the API keys page.',
		)
	}
	if (error.status === 403 || type === 'permission-denied' || type === 'insufficient-permissions') {
		return new ApifyError(
			'permission',
			`The Apify token may not do this${detail ? `: ${detail}` : '.'}`,
		)
	}
	if (error.status === 400 || type === 'invalid-input') {
		return new ApifyError('input', `Apify refused the search${detail ? `: ${detail}` : '.'}`)
	}
	if (error.status === 429) {
		return new ApifyError(
			'rate-limited',
			'Apify is rate limiting us. We will try again.',
			error.retryAfterSeconds,
		)
	}
	if (error.status >= 500)
		return new ApifyError('unavailable', 'Apify is having trouble. We will try again.')
	return new ApifyError('other', detail ?? `Apify answered ${error.status}`)
}

// The documented shapes a job relies on (unknown fields kept out, extra ones allowed).
const runSchema = z.object({
	id: z.string().min(1),
	status: z.string().min(1),
	defaultDatasetId: z.string().min(1),
	defaultKeyValueStoreId: z.string().nullish(),
	startedAt: z.string().nullish(),
	finishedAt: z.string().nullish(),
	statusMessage: z.string().nullish(),
})
const runAnswer = z.object({ data: runSchema })
const runsAnswer = z.object({ data: z.object({ items: z.array(runSchema) }) })
const userAnswer = z.object({
	data: z.object({ id: z.string().min(1), username: z.string().nullish() }),
})
const itemsAnswer = z.array(z.record(z.string(), z.unknown()))
const headerCount = z.coerce.number().int().nonnegative()

export type ApifyClient = ReturnType<typeof createApifyClient>

export function createApifyClient(options: {
	baseUrl: string
	token: string
	retryDelayMs?: number
	/** how long a 402 "no memory left on this token" is waited out before trying again */
	capacityRetrySeconds?: number
	/** how long a run just started may answer 404 (replica lag) before it counts as gone */
	runNotFoundGraceMs?: number
}) {
	const capacityRetrySeconds = options.capacityRetrySeconds ?? 60
	const runNotFoundGraceMs = options.runNotFoundGraceMs ?? 30_000
	const http = createHttpClient({
		baseURL: `${options.baseUrl.replace(/\/$/, '')}/v2`,
		headers: { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json' },
		timeoutMs: 90_000,
		retryDelayMs: options.retryDelayMs,
	})
	const call = async <T>(fn: () => Promise<T>) => {
		try {
			return await fn()
		} catch (error) {
			throw describe(error, capacityRetrySeconds)
		}
	}

	return {
		/** GET /v2/users/me: a cheap authenticated call to test a token. */
		checkToken: () => call(() => http.checked(userAnswer, '/users/me')).then((r) => r.data.data),

		startRun: (
			actorId: string,
			input: unknown,
			run: { timeoutSecs?: number; maxItems?: number } = {},
		) =>
			call(() =>
				http.checked(runAnswer, `/acts/${encodeURIComponent(actorId)}/runs`, {
					method: 'POST',
					body: input,
					query: { timeout: run.timeoutSecs, maxItems: run.maxItems },
				}),
			).then((r) => r.data.data as ApifyRun),

		/**
		 * Long-polls up to `waitSeconds` (Apify allows 60). A 404 is retried for a bounded time
		 * (runNotFoundGraceMs), as the official client does: a run just started may not be on
		 * the replica that answers yet, and failing then would leave it running, and costing.
		 */
		getRun: (runId: string, waitSeconds = 60) =>
			call(async () => {
				const since = Date.now()
				for (;;) {
					try {
						return await http.checked(runAnswer, `/actor-runs/${encodeURIComponent(runId)}`, {
							query: { waitForFinish: waitSeconds },
							timeoutMs: (waitSeconds + 30) * 1000,
						})
					} catch (error) {
						const waited = Date.now() - since
						if (
							!(error instanceof HttpError && error.status === 404) ||
							waited >= runNotFoundGraceMs
						)
							throw error
						await sleep(Math.min(1000, 250 + waited / 4))
					}
				}
			}).then((r) => r.data.data as ApifyRun),

		/** The actor's latest runs, newest first (GET /v2/acts/{actorId}/runs?desc=1). */
		listRuns: (actorId: string, limit = 20) =>
			call(() =>
				http.checked(runsAnswer, `/acts/${encodeURIComponent(actorId)}/runs`, {
					query: { desc: 1, limit },
				}),
			).then((r) => r.data.data.items as ApifyRun[]),

		/** The input a run was started with: its key-value store's INPUT record. */
		runInput: (run: ApifyRun) =>
			call(() =>
				http.json<unknown>(
					`/key-value-stores/${encodeURIComponent(run.defaultKeyValueStoreId ?? '')}/records/INPUT`,
				),
			),

		abortRun: (runId: string) =>
			call(() =>
				http.json<{ data: ApifyRun }>(`/actor-runs/${encodeURIComponent(runId)}/abort`, {
					method: 'POST',
				}),
			).then((r) => r.data),

		/**
		 * One page of a dataset (clean=1: empty items and hidden fields left out), the dataset's
		 * total item count (X-Apify-Pagination-Total, empty items included), and the offset of
		 * the next page: this one's offset + the limit Apify applied, not + the items returned
		 * (with clean=1 those can be fewer with more after them).
		 */
		datasetItems: async (datasetId: string, page: { offset: number; limit: number }) => {
			const url = `/datasets/${encodeURIComponent(datasetId)}/items`
			return call(async () => {
				const response = await http.checked(itemsAnswer, url, {
					query: { format: 'json', clean: 1, offset: page.offset, limit: page.limit },
				})
				const header = (name: string) => {
					const value = response.headers.get(name)
					return value === null || value.trim() === '' ? undefined : value
				}
				const where = { method: 'GET', url, status: response.status }
				const total = checkHeader(
					headerCount,
					header('x-apify-pagination-total'),
					where,
					'X-Apify-Pagination-Total',
				)
				const applied = header('x-apify-pagination-limit')
				const limit =
					applied === undefined
						? page.limit
						: checkHeader(headerCount, applied, where, 'X-Apify-Pagination-Limit')
				if (limit <= 0 && page.offset < total)
					throw new MalformedAnswerError({ ...where, problems: ['X-Apify-Pagination-Limit: 0'] })
				return {
					items: response.data,
					total,
					nextOffset: page.offset + Math.min(page.limit, limit),
				}
			})
		},
	}
}

function checkHeader(
	schema: typeof headerCount,
	value: string | undefined,
	where: { method: string; url: string; status: number },
	name: string,
) {
	const parsed = schema.safeParse(value)
	if (!parsed.success)
		throw new MalformedAnswerError({
			...where,
			problems: [`${name}: ${value === undefined ? 'missing' : `not a count (${value})`}`],
		})
	return parsed.data
}

export function isFinished(run: ApifyRun) {
	return FINISHED.includes(run.status)
}

/** The error a finished, unsuccessful run stands for. */
export function runFailure(run: ApifyRun): ApifyError | null {
	const why = run.statusMessage ? `: ${run.statusMessage}` : '.'
	switch (run.status) {
		case 'FAILED':
			return new ApifyError('run-failed', `The Apify run failed${why}`)
		case 'TIMED-OUT':
			return new ApifyError('timed-out', `The Apify run timed out${why}`)
		case 'ABORTED':
			return new ApifyError('aborted', `The Apify run was aborted${why}`)
		default:
			return null
	}
}
