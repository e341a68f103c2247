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

// MillionVerifier (reference/verification-deliverability-webhooks.md; millionverifier.com API
// docs): the key goes in the query (`api=`). As the service behaves:
// - a bad key or an account out of credits answers HTTP 200 with `result: "error"` and an
//   `error` text: the body is read, never the status alone;
// - `result`: ok, catch_all, unknown, error, disposable, invalid; `quality` says `risky` of
//   some `ok` answers; `role` flags role addresses; unknown and catch_all are not charged;
// - `timeout` (2-60 s) is how long it tries the mail server: our own timeout is longer;
// - the bulk file API (upload, fileinfo, download; UNCONFIRMED paths, kept configurable by
//   MILLIONVERIFIER_BULK_URL) answers minutes later for a whole file.

const LABEL = 'MillionVerifier'

const singleAnswer = z.object({
	email: z.string().optional(),
	result: z.string(),
	quality: z.string().nullish(),
	subresult: z.string().nullish(),
	role: z.boolean().nullish(),
	free: z.boolean().nullish(),
	error: z.string().nullish(),
	credits: z.number().nullish(),
})

const creditsAnswer = z.object({ credits: z.number().nullish(), error: z.string().nullish() })

const fileAnswer = z.object({
	file_id: z.union([z.string(), z.number()]).nullish(),
	status: z.string().nullish(),
	percent: z.number().nullish(),
	error: z.string().nullish(),
})

/** MillionVerifier's answer for one email in our status set. */
export function mapMillionVerifier(answer: z.infer<typeof singleAnswer>): VerifyStatus {
	switch (answer.result) {
		case 'ok':
			return answer.quality === 'risky' ? 'risky' : 'valid'
		case 'catch_all':
			return 'catch_all'
		case 'disposable':
			return 'disposable'
		case 'invalid':
			return 'invalid'
		default:
			// unknown, and a per-email error
			return 'unknown'
	}
}

export function createMillionVerifierClient(options: {
	baseUrl: string
	bulkUrl?: string
	apiKey: string
	/** seconds MillionVerifier tries the mail server (2-60) */
	checkTimeoutSeconds?: number
	retryDelayMs?: number
}): Verifier & {
	credits(): Promise<number>
	uploadFile(emails: string[]): Promise<string>
	fileInfo(fileId: string): Promise<{ status: string; percent: number }>
	download(fileId: string): Promise<VerifyAnswer[]>
} {
	const checkTimeout = Math.min(60, Math.max(2, options.checkTimeoutSeconds ?? 10))
	const http = createHttpClient({
		baseURL: options.baseUrl,
		timeoutMs: (checkTimeout + 10) * 1000,
		retryDelayMs: options.retryDelayMs,
		// a list is checked an email a request, up to the key's rate (160 a second)
		transport: 'keep-alive',
	})
	const bulk = createHttpClient({
		baseURL: options.bulkUrl ?? 'https://bulkapi.millionverifier.com',
		timeoutMs: 60_000,
		retryDelayMs: options.retryDelayMs,
		parseResponse: (text) => text,
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
			const { data } = await http.checked(creditsAnswer, '/api/v3/credits', {
				query: { api: options.apiKey },
			})
			if (data.error) throw errorFromText(LABEL, data.error)
			return data.credits ?? 0
		})
	return {
		name: 'millionverifier',
		batchSize: 1,
		credits,
		async checkKey() {
			const left = await credits()
			return `The key works: ${LABEL} has ${left.toLocaleString('en')} credits left on this account.`
		},
		async verify(emails, signal) {
			return Promise.all(
				emails.map((email) =>
					call(async () => {
						const { data } = await http.checked(singleAnswer, '/api/v3/', {
							query: { api: options.apiKey, email, timeout: checkTimeout },
							signal,
						})
						// a bad key or no credits: HTTP 200 with result "error" and no email answer
						if (
							data.result === 'error' &&
							data.error &&
							(!data.email || /key|credit/i.test(data.error))
						)
							throw errorFromText(LABEL, data.error)
						return {
							email,
							status: mapMillionVerifier(data),
							role: data.role === true,
							raw: data,
							...(data.result === 'error' && data.error ? { error: data.error } : {}),
						} satisfies VerifyAnswer
					}),
				),
			)
		},
		uploadFile: (emails) =>
			call(async () => {
				const form = new FormData()
				form.append(
					'file_contents',
					new Blob([emails.join('\n')], { type: 'text/csv' }),
					'list.csv',
				)
				const { data } = await bulk.request<unknown>('/bulkapi/v2/upload', {
					method: 'POST',
					query: { key: options.apiKey },
					body: form,
				})
				const parsed = fileAnswer.safeParse(typeof data === 'string' ? safeJson(data) : data)
				if (!parsed.success || parsed.data.error || parsed.data.file_id == null)
					throw errorFromText(LABEL, parsed.data?.error ?? 'the upload got no file id')
				return String(parsed.data.file_id)
			}),
		fileInfo: (fileId) =>
			call(async () => {
				const { data } = await bulk.request<string>('/bulkapi/v2/fileinfo', {
					query: { key: options.apiKey, file_id: fileId },
				})
				const parsed = fileAnswer.safeParse(safeJson(data))
				if (!parsed.success)
					throw new VerifierError(
						'unavailable',
						`${LABEL} sent a file status it does not document.`,
					)
				if (parsed.data.error) throw errorFromText(LABEL, parsed.data.error)
				return { status: parsed.data.status ?? 'unknown', percent: parsed.data.percent ?? 0 }
			}),
		download: (fileId) =>
			call(async () => {
				const { data } = await bulk.request<string>('/bulkapi/v2/download', {
					query: { key: options.apiKey, file_id: fileId, filter: 'all' },
				})
				const lines = String(data).split(/\r?\n/).filter(Boolean)
				const header = (lines.shift() ?? '').split(',').map((h) => h.trim().toLowerCase())
				const at = (name: string) => header.indexOf(name)
				return lines.map((line) => {
					const cells = line.split(',')
					const answer = {
						email: cells[at('email')] ?? '',
						result: cells[at('result')] ?? 'unknown',
						quality: cells[at('quality')] ?? null,
						role: cells[at('role')] === 'true',
					}
					return {
						email: answer.email,
						status: mapMillionVerifier(answer),
						role: answer.role,
						raw: answer,
					}
				})
			}),
	}
}

function safeJson(text: string) {
	try {
		return JSON.parse(text) as unknown
	} catch {
		return text
	}
}
