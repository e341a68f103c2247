import { z } from 'zod'
import { createHttpClient } from './http.server.ts'
import {
	describeVerifierError,
	errorFromText,
	type Verifier,
	type VerifyAnswer,
	type VerifyStatus,
} from './email-verifiers.server.ts'

// Reacher (the open-source check-if-email-exists server, reacherhq; self-hosted or its SaaS):
// POST {base}/v0/check_email {"to_email"}; the SaaS takes the key in `Authorization`, a
// self-hosted server an optional shared secret in `x-reacher-secret` (both are sent). A base
// URL an account sets is a user URL (outbound guard: public addresses only, no redirects). A
// check talks SMTP to the mail server and takes seconds. AGPL-3.0: called over HTTP only.
// `is_reachable`: safe, risky, invalid, unknown; misc.is_disposable, misc.is_role_account,
// smtp.is_catch_all.

const LABEL = 'Reacher'

const checkAnswer = z
	.object({
		input: z.string().nullish(),
		is_reachable: z.enum(['safe', 'risky', 'invalid', 'unknown']),
		misc: z
			.object({
				is_disposable: z.boolean().nullish(),
				is_role_account: z.boolean().nullish(),
			})
			.passthrough()
			.nullish(),
		smtp: z
			.union([
				z.object({ is_catch_all: z.boolean().nullish() }).passthrough(),
				z.object({ error: z.unknown() }).passthrough(),
			])
			.nullish(),
	})
	.passthrough()

/** Reacher's answer for one email in our status set. */
export function mapReacher(answer: z.infer<typeof checkAnswer>): VerifyStatus {
	if (answer.misc?.is_disposable) return 'disposable'
	switch (answer.is_reachable) {
		case 'safe':
			return 'valid'
		case 'invalid':
			return 'invalid'
		case 'risky':
			return answer.smtp && 'is_catch_all' in answer.smtp && answer.smtp.is_catch_all
				? 'catch_all'
				: 'risky'
		default:
			return 'unknown'
	}
}

export function createReacherClient(options: {
	baseUrl: string
	apiKey?: string
	/** the base URL is the account's own: the outbound guard applies */
	userUrl: boolean
	retryDelayMs?: number
}): Verifier {
	const http = createHttpClient({
		baseURL: options.baseUrl,
		userUrl: options.userUrl,
		// a check waits on the mail server: Reacher's own SMTP timeout is up to a minute
		timeoutMs: 90_000,
		retryDelayMs: options.retryDelayMs,
		headers: options.apiKey
			? { Authorization: options.apiKey, 'x-reacher-secret': options.apiKey }
			: {},
	})
	const check = async (email: string, signal?: AbortSignal): Promise<VerifyAnswer> => {
		try {
			const { data } = await http.request<unknown>('/v0/check_email', {
				method: 'POST',
				body: { to_email: email },
				signal,
			})
			if (data && typeof data === 'object' && 'error' in data && !('is_reachable' in data))
				throw errorFromText(LABEL, String((data as { error: unknown }).error))
			const parsed = checkAnswer.safeParse(data)
			if (!parsed.success)
				return {
					email,
					status: 'unknown',
					role: false,
					raw: data,
					error: `${LABEL} sent an answer that is not what its API documents.`,
				}
			return {
				email,
				status: mapReacher(parsed.data),
				role: parsed.data.misc?.is_role_account === true,
				raw: parsed.data,
			}
		} catch (error) {
			throw describeVerifierError(LABEL, error)
		}
	}
	return {
		name: 'reacher',
		batchSize: 1,
		async checkKey() {
			// no free call to test with: one check of a reserved domain (no mail server, answered at once)
			const answer = await check('key-test@example.com')
			return `The key works: ${LABEL} answered a test check (${answer.status}).`
		},
		verify: (emails, signal) => Promise.all(emails.map((email) => check(email, signal))),
	}
}
