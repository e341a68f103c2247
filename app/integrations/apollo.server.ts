import { z } from 'zod'
import { createHttpClient, HttpError, MalformedAnswerError, NetworkError } from './http.server.ts'

// Apollo's official API (reference/emailbison-apify-apollo.md): header x-api-key;
// company enrichment GET /organizations/enrich?domain=... -> { organization }. As the service
// behaves (docs.apollo.io, and users' reports of live answers):
// - GET /auth/health answers 200 {"healthy":true,"is_logged_in":false} for a wrong key: only
//   is_logged_in says whether the key works;
// - 403 with error_code API_INACCESSIBLE: the key's plan or scope does not reach the endpoint
//   (the key itself is valid);
// - 429 comes without Retry-After, on per-minute, hourly and daily windows; each answer
//   carries x-minute-requests-left, x-hourly-requests-left and x-24-hour-requests-left, which
//   say which window is spent, but no reset time. Whether a window is fixed on the clock or
//   rolls is unconfirmed: a spent window is asked again at its next clock boundary or after
//   the configured wait, whichever comes first (`resumeAt`), and the job waits for that in
//   the queue, not in place (decision 0077);
// - an answer a job relies on is checked (zod): a 200 that is not a JSON object is a
//   transient failure, never "Apollo does not know this domain".

export type ApolloOrganization = {
	id?: string
	name?: string | null
	website_url?: string | null
	primary_domain?: string | null
	industry?: string | null
	estimated_num_employees?: number | null
	city?: string | null
	state?: string | null
	country?: string | null
	linkedin_url?: string | null
	short_description?: string | null
	[key: string]: unknown
}

export type ApolloWindow = 'minute' | 'hour' | 'day'

export class ApolloError extends Error {
	readonly kind: 'key' | 'plan' | 'rate-limited' | 'unavailable' | 'other'
	readonly retryAfterSeconds: number | undefined
	/** the rate-limit window that is spent, when Apollo's headers say */
	readonly window: ApolloWindow | undefined
	/** when a spent window is asked again: the job waits in the queue until then */
	readonly resumeAt: Date | undefined
	constructor(
		kind: ApolloError['kind'],
		message: string,
		retryAfterSeconds?: number,
		window?: ApolloWindow,
		resumeAt?: Date,
	) {
		super(message)
		this.name = 'ApolloError'
		this.kind = kind
		this.retryAfterSeconds = retryAfterSeconds
		this.window = window
		this.resumeAt = resumeAt
	}
	get retryable() {
		return this.kind === 'rate-limited' || this.kind === 'unavailable'
	}
}

/** How long each spent window is waited out (Apollo's headers give no reset time). */
export type WindowWaits = Record<ApolloWindow, number>
export const DEFAULT_WINDOW_WAITS: WindowWaits = { minute: 60, hour: 900, day: 3600 }

const WINDOW_HEADERS: [ApolloWindow, string][] = [
	['day', 'x-24-hour-requests-left'],
	['hour', 'x-hourly-requests-left'],
	['minute', 'x-minute-requests-left'],
]

/** The widest window Apollo's headers say is spent (0 requests left), if any. */
export function spentWindow(headers: Headers | undefined): ApolloWindow | undefined {
	for (const [window, name] of WINDOW_HEADERS) {
		const value = headers?.get(name)
		if (value !== null && value !== undefined && value.trim() !== '' && Number(value) <= 0)
			return window
	}
	return undefined
}

/**
 * When a spent window is asked again: its next clock boundary (the end of a window fixed on the
 * clock), or `waits` seconds from now (a rolling window frees sooner; one fixed from its first
 * call ends within its length), whichever comes first. A second past the boundary: clocks differ.
 */
export function windowResumesAt(window: ApolloWindow, waits: WindowWaits, now = new Date()) {
	const boundary = new Date(now)
	if (window === 'minute') boundary.setUTCSeconds(60, 0)
	else if (window === 'hour') boundary.setUTCMinutes(60, 0, 0)
	else boundary.setUTCHours(24, 0, 0, 0)
	return new Date(Math.min(boundary.getTime() + 1000, now.getTime() + waits[window] * 1000))
}

const WINDOW_WORDS: Record<ApolloWindow, string> = {
	minute: 'per-minute',
	hour: 'hourly',
	day: 'daily',
}

/** "15:00" (UTC), with the date when it is not today's */
function clockTime(at: Date) {
	const time = at.toISOString().slice(11, 16)
	return at.toISOString().slice(0, 10) === new Date().toISOString().slice(0, 10)
		? time
		: `${time} on ${at.toISOString().slice(0, 10)}`
}

function describe(error: unknown, waits: WindowWaits): ApolloError {
	if (error instanceof ApolloError) return error
	if (error instanceof NetworkError)
		return new ApolloError('unavailable', 'Apollo could not be reached. We will try again.')
	// the cause kept: a job that gives up says what was wrong, not "could not be reached"
	if (error instanceof MalformedAnswerError)
		return Object.assign(
			new ApolloError(
				'unavailable',
				`Apollo sent an answer that is not what its API documents (${error.problems.join('; ')}).`,
			),
			{ cause: error },
		)
	if (!(error instanceof HttpError)) return new ApolloError('other', String(error))
	const body = error.body as { error?: string; message?: string; error_code?: string } | undefined
	if (error.status === 401) {
		return new ApolloError('key', 'The Apollo API key is not valid. Check it on the API keys page.')
	}
	if (error.status === 403) {
		// API_INACCESSIBLE and other 403s: a valid key whose plan or scope stops here
		return new ApolloError(
			'plan',
			`Apollo refused this call for the key's plan or permissions${body?.error ? `: ${body.error}` : '.'} Check the key's plan and scopes in Apollo.`,
		)
	}
	if (error.status === 429) {
		const window = spentWindow(error.headers)
		if (!window)
			return new ApolloError(
				'rate-limited',
				'Apollo is rate limiting us. We will try again.',
				error.retryAfterSeconds,
			)
		const resumeAt =
			error.retryAfterSeconds !== undefined
				? new Date(Date.now() + error.retryAfterSeconds * 1000)
				: windowResumesAt(window, waits)
		return new ApolloError(
			'rate-limited',
			`Apollo's ${WINDOW_WORDS[window]} request limit for this key is used up: the work waits until ${clockTime(resumeAt)} UTC and then goes on by itself.`,
			Math.max(0, (resumeAt.getTime() - Date.now()) / 1000),
			window,
			resumeAt,
		)
	}
	if (error.status >= 500)
		return new ApolloError('unavailable', 'Apollo is having trouble. We will try again.')
	return new ApolloError('other', body?.error ?? body?.message ?? `Apollo answered ${error.status}`)
}

const healthAnswer = z.object({
	healthy: z.boolean().nullish(),
	is_logged_in: z.boolean().nullish(),
})
// {} (no organization) is how Apollo answers a domain it does not know
const enrichAnswer = z.object({
	organization: z.record(z.string(), z.unknown()).nullish(),
})

export function createApolloClient(options: {
	baseUrl: string
	apiKey: string
	retryDelayMs?: number
	/** seconds each spent rate-limit window is waited out */
	windowWaits?: Partial<WindowWaits>
}) {
	const waits = { ...DEFAULT_WINDOW_WAITS, ...options.windowWaits }
	const http = createHttpClient({
		baseURL: options.baseUrl.replace(/\/$/, ''),
		headers: {
			'x-api-key': options.apiKey,
			'Content-Type': 'application/json',
			'Cache-Control': 'no-cache',
		},
		timeoutMs: 30_000,
		retryDelayMs: options.retryDelayMs,
	})
	const call = async <T>(fn: () => Promise<T>) => {
		try {
			return await fn()
		} catch (error) {
			throw describe(error, waits)
		}
	}
	return {
		/**
		 * A cheap authenticated call to test a key. Apollo answers 200 for any key: a key that
		 * is not logged in is refused here ('key'), whatever the status said.
		 */
		health: () =>
			call(async () => {
				const { data } = await http.checked(healthAnswer, '/auth/health')
				if (data.is_logged_in !== true)
					throw new ApolloError(
						'key',
						'The Apollo API key is not valid. Check it on the API keys page.',
					)
				return data
			}),
		/** The company behind a domain, or null when Apollo does not know it. */
		enrichOrganization: (domain: string) =>
			call(() =>
				http.checked(enrichAnswer, '/organizations/enrich', {
					query: { domain },
				}),
			).then((r) => (r.data.organization ?? null) as ApolloOrganization | null),
	}
}
