import { createHttpClient, HttpError, NetworkError } from './http.server.ts'

// Apify's REST API v2 (reference/emailbison-apify-apollo.md): start a run,
// long-poll it, page its dataset, abort it. Knows nothing of lists or credits.

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

function describe(error: unknown): ApifyError {
	if (error instanceof ApifyError) return error
	if (error instanceof NetworkError)
		return new ApifyError('unavailable', 'Apify could not be reached. We will try again.')
	if (!(error instanceof HttpError)) return new ApifyError('other', String(error))
	const body = error.body as { error?: { type?: string; message?: string } } | undefined
	const type = body?.error?.type
	const detail = body?.error?.message
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

export type ApifyClient = ReturnType<typeof createApifyClient>

export function createApifyClient(options: {
	baseUrl: string
	token: string
	retryDelayMs?: number
}) {
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
			throw describe(error)
		}
	}

	return {
		/** GET /v2/users/me: a cheap authenticated call to test a token. */
		checkToken: () =>
			call(() => http.json<{ data: { id: string; username?: string } }>('/users/me')).then(
				(r) => r.data,
			),

		startRun: (
			actorId: string,
			input: unknown,
			run: { timeoutSecs?: number; maxItems?: number } = {},
		) =>
			call(() =>
				http.json<{ data: ApifyRun }>(`/acts/${encodeURIComponent(actorId)}/runs`, {
					method: 'POST',
					body: input,
					query: { timeout: run.timeoutSecs, maxItems: run.maxItems },
				}),
			).then((r) => r.data),

		/** Long-polls up to `waitSeconds` (Apify allows 60). */
		getRun: (runId: string, waitSeconds = 60) =>
			call(() =>
				http.json<{ data: ApifyRun }>(`/actor-runs/${encodeURIComponent(runId)}`, {
					query: { waitForFinish: waitSeconds },
					timeoutMs: (waitSeconds + 30) * 1000,
				}),
			).then((r) => r.data),

		/** The actor's latest runs, newest first (GET /v2/acts/{actorId}/runs?desc=1). */
		listRuns: (actorId: string, limit = 20) =>
			call(() =>
				http.json<{ data: { items: ApifyRun[] } }>(`/acts/${encodeURIComponent(actorId)}/runs`, {
					query: { desc: 1, limit },
				}),
			).then((r) => r.data.items ?? []),

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

		/** One page of a dataset, and the dataset's total item count. */
		datasetItems: async <T>(datasetId: string, page: { offset: number; limit: number }) => {
			const response = await call(() =>
				http.request<T[]>(`/datasets/${encodeURIComponent(datasetId)}/items`, {
					query: { format: 'json', clean: 1, offset: page.offset, limit: page.limit },
				}),
			)
			const total = Number(response.headers.get('x-apify-pagination-total'))
			return {
				items: Array.isArray(response.data) ? response.data : [],
				total: Number.isFinite(total) ? total : undefined,
			}
		},
	}
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
