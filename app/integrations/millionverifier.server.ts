import { z } from 'zod'
import { parse } from 'csv-parse/sync'
import { createHttpClient, HttpError } from './http.server.ts'
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
// - the bulk file API on its own host (MILLIONVERIFIER_BULK_URL): upload a file, poll its
//   status, download its report. The operations (bulk-upload, bulk-fileinfo, bulk-download,
//   bulk-filelist) are in MillionVerifier's API reference; their paths and fields are as its
//   published clients call them, not read from the reference's own text (decision 0099): every
//   answer is read defensively, and the job falls back to single checks when the paths are not
//   there (a 404, or an upload answered without a file id).

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
	file_name: z.string().nullish(),
	status: z.string().nullish(),
	percent: z.coerce.number().nullish(),
	error: z.string().nullish(),
})

/** A bulk file's state: in_progress (with percent), finished, or ended without a report. */
export type BulkFileState = { status: 'in_progress' | 'finished' | 'failed'; percent: number }

const fileState = (status: string | null | undefined): BulkFileState['status'] =>
	status === 'finished'
		? 'finished'
		: status === 'canceled' || status === 'error' || status === 'failed'
			? 'failed'
			: 'in_progress'

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
	/** uploads a file of emails named `name` (unique: how a lost answer's file is found) */
	uploadFile(emails: string[], name: string): Promise<string>
	/** the file of this name, when one was uploaded */
	findFile(name: string): Promise<string | null>
	fileInfo(fileId: string): Promise<BulkFileState>
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
		uploadFile: (emails, name) =>
			call(async () => {
				const form = new FormData()
				form.append('file_contents', new Blob([emails.join('\n')], { type: 'text/plain' }), name)
				const { data } = await bulk
					.request<unknown>('/bulkapi/v2/upload', {
						method: 'POST',
						query: { key: options.apiKey },
						body: form,
					})
					.catch((error: unknown) => {
						if (error instanceof HttpError && (error.status === 404 || error.status === 405))
							throw new BulkUnsupported(`the upload was answered ${error.status}`)
						throw error
					})
				// HTTP 200 with an error body for a bad key or no credits
				const body = safeJson(data)
				// not JSON (a proxy's page): the file may or may not exist; the job looks it up by name
				if (typeof body !== 'object' || body === null)
					throw new VerifierError(
						'unavailable',
						`${LABEL} answered the upload with something its API does not document.`,
					)
				const parsed = fileAnswer.safeParse(body)
				if (parsed.success && parsed.data.error) throw errorFromText(LABEL, parsed.data.error)
				if (!parsed.success || parsed.data.file_id == null)
					throw new BulkUnsupported('the upload was answered without a file id')
				return String(parsed.data.file_id)
			}),
		findFile: (name) =>
			call(async () => {
				const { data } = await bulk.request<string>('/bulkapi/v2/filelist', {
					query: { key: options.apiKey, name },
				})
				const parsed = z
					.object({ files: z.array(fileAnswer).nullish(), error: z.string().nullish() })
					.safeParse(safeJson(data))
				if (!parsed.success)
					throw new VerifierError('unavailable', `${LABEL} sent a file list it does not document.`)
				if (parsed.data.error) throw errorFromText(LABEL, parsed.data.error)
				const file = parsed.data.files?.find((f) => f.file_name === name && f.file_id != null)
				return file ? String(file.file_id) : null
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
				return { status: fileState(parsed.data.status), percent: parsed.data.percent ?? 0 }
			}),
		download: (fileId) =>
			call(async () => {
				const { data } = await bulk.request<string>('/bulkapi/v2/download', {
					query: { key: options.apiKey, file_id: fileId, filter: 'all' },
				})
				const text = String(data)
				// an error comes as JSON (HTTP 200), a report as CSV
				const json = safeJson(text)
				if (json && typeof json === 'object' && 'error' in json)
					throw errorFromText(LABEL, String((json as { error: unknown }).error))
				let records: Record<string, string>[]
				let header: string[] = []
				try {
					records = parse(text, {
						columns: (h: string[]) => (header = h.map((c) => c.trim().toLowerCase())),
						skip_empty_lines: true,
						relax_column_count: true,
					})
				} catch {
					throw new VerifierError('unavailable', `${LABEL} sent a report that is not CSV.`)
				}
				if (!header.includes('email') || !header.includes('result'))
					throw new VerifierError(
						'unavailable',
						`${LABEL} sent a report without email and result columns.`,
					)
				const yes = (v: string | undefined) => v === 'yes' || v === 'true' || v === '1'
				return records.map((r) => {
					const answer = {
						email: (r.email ?? '').trim(),
						result: r.result ?? 'unknown',
						quality: r.quality ?? null,
						role: yes(r.role),
						free: yes(r.free),
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

/** The bulk file API is not there (a 404, an upload answered without a file id): check singly. */
export class BulkUnsupported extends VerifierError {
	constructor(why: string) {
		super('other', `${LABEL}'s bulk file API is not available (${why}).`)
	}
}

export const isBulkUnsupported = (error: unknown) => error instanceof BulkUnsupported

function safeJson(text: unknown) {
	if (typeof text !== 'string') return text
	try {
		return JSON.parse(text) as unknown
	} catch {
		return text
	}
}
