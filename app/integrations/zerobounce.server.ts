import { z } from 'zod'
import { createHttpClient } from './http.server.ts'
import {
	describeVerifierError,
	errorFromText,
	VerifierError,
	type Verifier,
	type VerifyAnswer,
	type VerifyStatus,
} from './email-verifiers.server.ts'

// ZeroBounce (reference/verification-deliverability-webhooks.md; zerobounce.net API docs): the
// key goes in the query (`api_key`) or the body. As the service behaves:
// - errors come back as HTTP 200 with an `error` field ("Invalid API Key or your account ran out
//   of credits"): the body is read, never the status alone; getcredits answers Credits "-1"
//   for a bad key;
// - validatebatch takes up to 100 emails a request (ZEROBOUNCE_BATCH_SIZE) and is limited to
//   30 requests a minute per key; 100 bad requests a minute block the key for an hour, so a
//   refused key stops a run at once;
// - `status`: valid, invalid, catch-all, unknown, spamtrap, abuse, do_not_mail; `sub_status`
//   says disposable, role_based, toxic and more.

const LABEL = 'ZeroBounce'

const validation = z.object({
	address: z.string(),
	status: z.string(),
	sub_status: z.string().nullish(),
	free_email: z.union([z.boolean(), z.string()]).nullish(),
	did_you_mean: z.string().nullish(),
	mx_found: z.union([z.boolean(), z.string()]).nullish(),
})

const singleAnswer = z.union([validation.passthrough(), z.object({ error: z.string() })])

const batchAnswer = z.union([
	z.object({
		email_batch: z.array(validation.passthrough()),
		errors: z.array(z.object({ error: z.string(), email_address: z.string().nullish() })).nullish(),
	}),
	z.object({ error: z.string() }),
	z.object({ Message: z.string() }),
])

const creditsAnswer = z.object({ Credits: z.union([z.string(), z.number()]) })

/** ZeroBounce's answer for one email in our status set. */
export function mapZeroBounce(answer: {
	status: string
	sub_status?: string | null
}): VerifyStatus {
	const sub = answer.sub_status ?? ''
	if (sub === 'disposable') return 'disposable'
	switch (answer.status) {
		case 'valid':
			return 'valid'
		case 'invalid':
			return 'invalid'
		case 'catch-all':
			return 'catch_all'
		case 'spamtrap':
		case 'abuse':
		case 'do_not_mail':
			return 'risky'
		default:
			return 'unknown'
	}
}

function toAnswer(email: string, data: z.infer<typeof validation>): VerifyAnswer {
	return {
		email,
		status: mapZeroBounce(data),
		role: data.sub_status === 'role_based',
		raw: data,
	}
}

export function createZeroBounceClient(options: {
	baseUrl: string
	bulkUrl: string
	apiKey: string
	batchSize?: number
	retryDelayMs?: number
}): Verifier & { credits(): Promise<number> } {
	const http = createHttpClient({
		baseURL: options.baseUrl,
		timeoutMs: 60_000,
		retryDelayMs: options.retryDelayMs,
	})
	const bulk = createHttpClient({
		baseURL: options.bulkUrl,
		timeoutMs: 120_000,
		retryDelayMs: options.retryDelayMs,
	})
	const call = async <T>(fn: () => Promise<T>) => {
		try {
			return await fn()
		} catch (error) {
			throw describeVerifierError(LABEL, error)
		}
	}
	const credits = () =>
		call(async () => {
			const { data } = await http.checked(creditsAnswer, '/v2/getcredits', {
				query: { api_key: options.apiKey },
			})
			const left = Number(data.Credits)
			if (left < 0) throw new VerifierError('key', `${LABEL} refused the API key.`)
			return left
		})
	const batchSize = options.batchSize ?? 100
	return {
		name: 'zerobounce',
		batchSize,
		credits,
		async checkKey() {
			const left = await credits()
			return `The key works: ${LABEL} has ${left.toLocaleString('en')} credits left on this account.`
		},
		verify: (emails, signal) =>
			call(async () => {
				if (emails.length === 1) {
					const { data } = await http.checked(singleAnswer, '/v2/validate', {
						query: { api_key: options.apiKey, email: emails[0]!, ip_address: '' },
						signal,
					})
					if ('error' in data && typeof data.error === 'string')
						throw errorFromText(LABEL, data.error)
					return [toAnswer(emails[0]!, data as z.infer<typeof validation>)]
				}
				const { data } = await bulk.checked(batchAnswer, '/v2/validatebatch', {
					method: 'POST',
					body: {
						api_key: options.apiKey,
						email_batch: emails.map((email) => ({ email_address: email, ip_address: '' })),
					},
					signal,
				})
				if ('error' in data) throw errorFromText(LABEL, data.error)
				if ('Message' in data) throw errorFromText(LABEL, data.Message)
				const byEmail = new Map(data.email_batch.map((v) => [v.address.toLowerCase(), v]))
				const failed = new Map(
					(data.errors ?? []).map((e) => [(e.email_address ?? '').toLowerCase(), e.error]),
				)
				return emails.map((email): VerifyAnswer => {
					const found = byEmail.get(email.toLowerCase())
					if (found) return toAnswer(email, found)
					// an email the batch did not answer: unknown, with its error when it gave one
					const error = failed.get(email.toLowerCase()) ?? `${LABEL} gave no answer for it.`
					return { email, status: 'unknown', role: false, raw: { error }, error }
				})
			}),
	}
}
