import { HttpError, MalformedAnswerError, NetworkError } from './http.server.ts'

// What the three email verification clients share (reference/verification-deliverability-
// webhooks.md, decision 0086): one status set, an answer per email with the provider's raw
// answer beside it, and one error type whose kind says what the job does next.

export const VERIFIERS = ['millionverifier', 'zerobounce', 'reacher'] as const
export type VerifierName = (typeof VERIFIERS)[number]

export const VERIFIER_LABELS: Record<VerifierName, string> = {
	millionverifier: 'MillionVerifier',
	zerobounce: 'ZeroBounce',
	reacher: 'Reacher',
}

export type VerifyStatus = 'valid' | 'invalid' | 'catch_all' | 'disposable' | 'risky' | 'unknown'

export type VerifyAnswer = {
	email: string
	status: VerifyStatus
	/** a role address (info@, sales@): a flag, not a status */
	role: boolean
	/** the provider's own answer for this email, kept as it came */
	raw: unknown
	/** why the provider could not tell (its per-email error), for an `unknown` */
	error?: string
}

export class VerifierError extends Error {
	/**
	 * key: the key is refused (stop, ask for a working key); credits: the provider's account
	 * has no credits left; rate-limited: wait (retryAfterSeconds); unavailable: down, timed out
	 * or answered garbage; url: a user-set URL that is not allowed or not reachable
	 */
	readonly kind: 'key' | 'credits' | 'rate-limited' | 'unavailable' | 'url' | 'other'
	readonly retryAfterSeconds: number | undefined
	constructor(kind: VerifierError['kind'], message: string, retryAfterSeconds?: number) {
		super(message)
		this.name = 'VerifierError'
		this.kind = kind
		this.retryAfterSeconds = retryAfterSeconds
	}
	get retryable() {
		return this.kind === 'rate-limited' || this.kind === 'unavailable'
	}
}

/** A provider client as the verify job uses it. */
export type Verifier = {
	name: VerifierName
	/** emails one request checks (a bulk endpoint's batch, or 1) */
	batchSize: number
	/** a cheap authenticated call: a sentence for the person, or VerifierError */
	checkKey(): Promise<string>
	/** one request for up to batchSize emails: an answer for each, in any order */
	verify(emails: string[], signal?: AbortSignal): Promise<VerifyAnswer[]>
}

/** Any failure of a call as a VerifierError with a sentence a user understands. */
export function describeVerifierError(label: string, error: unknown): VerifierError {
	if (error instanceof VerifierError) return error
	if (error instanceof NetworkError) {
		if (error.blocked)
			return new VerifierError(
				'url',
				`${label}'s URL leads to an internal address, which is not allowed.`,
			)
		return new VerifierError(
			'unavailable',
			/timeout|aborted/i.test(error.message)
				? `${label} did not answer in time.`
				: `${label} could not be reached.`,
		)
	}
	if (error instanceof MalformedAnswerError)
		return new VerifierError(
			'unavailable',
			`${label} sent an answer that is not what its API documents (${error.problems.join('; ')}).`,
		)
	if (error instanceof HttpError) {
		if (error.status === 401 || error.status === 403)
			return new VerifierError('key', `${label} refused the API key.`)
		if (error.status === 402)
			return new VerifierError('credits', `The ${label} account has no credits left.`)
		if (error.status === 429)
			return new VerifierError(
				'rate-limited',
				`${label} is rate limiting us.`,
				error.retryAfterSeconds,
			)
		if (error.status >= 500)
			return new VerifierError('unavailable', `${label} is having trouble (${error.status}).`)
		return new VerifierError('other', `${label} answered ${error.status}.`)
	}
	return new VerifierError('other', error instanceof Error ? error.message : String(error))
}

/** Reads a provider's error text (a 200 with an error body): a bad key or no credits. */
export function errorFromText(label: string, text: string): VerifierError {
	if (/credit/i.test(text) && !/key/i.test(text))
		return new VerifierError('credits', `The ${label} account has no credits left.`)
	if (/credit/i.test(text))
		return new VerifierError(
			'key',
			`${label} refused the API key or its account has no credits left (“${text}”).`,
		)
	if (/key|auth|unauthori[sz]ed/i.test(text))
		return new VerifierError('key', `${label} refused the API key (“${text}”).`)
	return new VerifierError('unavailable', `${label} answered with an error: “${text}”.`)
}
