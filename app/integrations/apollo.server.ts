import { createHttpClient, HttpError, NetworkError } from './http.server.ts'

// Apollo's official API (reference/emailbison-apify-apollo.md): header x-api-key;
// company enrichment GET /organizations/enrich?domain=... -> { organization }.

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

export class ApolloError extends Error {
	readonly kind: 'key' | 'rate-limited' | 'unavailable' | 'other'
	readonly retryAfterSeconds: number | undefined
	constructor(kind: ApolloError['kind'], message: string, retryAfterSeconds?: number) {
		super(message)
		this.name = 'ApolloError'
		this.kind = kind
		this.retryAfterSeconds = retryAfterSeconds
	}
	get retryable() {
		return this.kind === 'rate-limited' || this.kind === 'unavailable'
	}
}

function describe(error: unknown): ApolloError {
	if (error instanceof ApolloError) return error
	if (error instanceof NetworkError)
		return new ApolloError('unavailable', 'Apollo could not be reached. We will try again.')
	if (!(error instanceof HttpError)) return new ApolloError('other', String(error))
	if (error.status === 401 || error.status === 403) {
		return new ApolloError('key', 'The Apollo API key is not valid. Check it on the API keys page.')
	}
	if (error.status === 429) {
		return new ApolloError(
			'rate-limited',
			'Apollo is rate limiting us. We will try again.',
			error.retryAfterSeconds,
		)
	}
	if (error.status >= 500)
		return new ApolloError('unavailable', 'Apollo is having trouble. We will try again.')
	const body = error.body as { error?: string; message?: string } | undefined
	return new ApolloError('other', body?.error ?? body?.message ?? `Apollo answered ${error.status}`)
}

export function createApolloClient(options: {
	baseUrl: string
	apiKey: string
	retryDelayMs?: number
}) {
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
			throw describe(error)
		}
	}
	return {
		/** A cheap authenticated call to test a key. */
		health: () =>
			call(() => http.json<{ healthy?: boolean; is_logged_in?: boolean }>('/auth/health')),
		/** The company behind a domain, or null when Apollo does not know it. */
		enrichOrganization: (domain: string) =>
			call(() =>
				http.json<{ organization?: ApolloOrganization | null }>('/organizations/enrich', {
					query: { domain },
				}),
			).then((r) => r.organization ?? null),
	}
}
