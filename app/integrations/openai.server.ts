import type OpenAI from 'openai'
import type * as OpenAIModule from 'openai'
import { z } from 'zod'
import { createHttpClient, HttpError, NetworkError } from './http.server.ts'
import { COULD_NOT_CONNECT, isBlockedAddress, userUrlFetch } from './outbound.server.ts'

// An OpenAI-compatible provider (OpenAI, Azure OpenAI's v1 API, OpenRouter, Ollama...):
// chat completions through the official `openai` package with a configurable base URL,
// and the key test (GET /models) through our outgoing HTTP module. The package's own
// retries are off: the enrich job retries with backoff and honours Retry-After itself.
// As the providers behave (OpenAI's error bodies as users report them):
// - gpt-5 and o-series models refuse any temperature but the default (400 unsupported_value,
//   param "temperature"): such a model is asked again without it, and remembered;
// - 429 with code insufficient_quota is an empty account, not a passing rate limit: the run
//   stops with "out of quota";
// - some providers list their models to anyone (OpenRouter, Ollama): a key test whose
//   /models also answers without the key has not tested the key.

export type OutputField = { name: string; type: 'string' | 'number' | 'boolean' }
export type OutputFormat = { kind: 'text' } | { kind: 'json'; fields: OutputField[] }

export class ModelError extends Error {
	readonly kind:
		'key' | 'model' | 'url' | 'quota' | 'rate-limited' | 'unavailable' | 'bad-output' | 'other'
	readonly retryAfterSeconds: number | undefined
	constructor(kind: ModelError['kind'], message: string, retryAfterSeconds?: number) {
		super(message)
		this.name = 'ModelError'
		this.kind = kind
		this.retryAfterSeconds = retryAfterSeconds
	}
	/** worth trying the same call again later */
	get retryable() {
		return this.kind === 'rate-limited' || this.kind === 'unavailable'
	}
	/** no later row can succeed either: the whole run stops with this message */
	get fatal() {
		return (
			this.kind === 'key' || this.kind === 'model' || this.kind === 'url' || this.kind === 'quota'
		)
	}
}

function retryAfter(headers: Headers | undefined) {
	const value = headers?.get('retry-after-ms')
	if (value && Number.isFinite(Number(value))) return Number(value) / 1000
	const seconds = headers?.get('retry-after')
	if (!seconds) return undefined
	const n = Number(seconds)
	if (Number.isFinite(n)) return Math.max(0, n)
	const date = Date.parse(seconds)
	return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000)
}

type OpenAIPackage = typeof OpenAIModule

function describe(
	error: unknown,
	model: string,
	{ APIConnectionError, APIError, APIUserAbortError }: OpenAIPackage,
): ModelError {
	if (error instanceof ModelError) return error
	if (error instanceof APIUserAbortError) return new ModelError('other', 'Stopped.')
	// one wording whatever the cause (refused, timeout, TLS, internal address): no port mapping
	if (error instanceof APIConnectionError) {
		if (isBlockedAddress(error))
			return new ModelError('url', `${COULD_NOT_CONNECT} Check the AI provider's base URL.`)
		return new ModelError(
			'unavailable',
			`${COULD_NOT_CONNECT} The AI provider could not be reached.`,
		)
	}
	if (error instanceof APIError) {
		const status = error.status ?? 0
		const detail = error.message.replace(/^\d+\s*/, '')
		if (status === 401 || status === 403)
			return new ModelError('key', `The AI provider refused the API key: ${detail}`)
		if (status === 404 || error.code === 'model_not_found')
			return new ModelError(
				'model',
				`The AI provider does not offer the model “${model}”: ${detail}`,
			)
		if (status === 429 && error.code === 'insufficient_quota')
			return new ModelError(
				'quota',
				`The AI provider says this key is out of quota: add credit or raise its limit, then retry. (${detail})`,
			)
		if (status === 429)
			return new ModelError(
				'rate-limited',
				'The AI provider is rate limiting us.',
				retryAfter(error.headers),
			)
		if (status >= 500 || status === 408 || status === 409)
			return new ModelError('unavailable', `The AI provider is having trouble (${status}).`)
		if (status === 400 && /model/i.test(detail))
			return new ModelError('model', `The AI provider rejected the model “${model}”: ${detail}`)
		return new ModelError('other', `The AI provider answered ${status}: ${detail}`)
	}
	// an answer that is not JSON, or JSON without `choices`: the SDK's own error means nothing to a user
	if (error instanceof SyntaxError || error instanceof TypeError)
		return new ModelError('bad-output', 'The AI provider sent an answer that could not be read.')
	return new ModelError('other', error instanceof Error ? error.message : String(error))
}

const completionAnswer = z.object({
	choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }) })).min(1),
})

/** 400 unsupported_value on param temperature: the model takes only its default */
function refusesTemperature(error: unknown, { APIError }: OpenAIPackage) {
	if (!(error instanceof APIError) || error.status !== 400) return false
	const body = error.error as { param?: string; code?: string } | undefined
	return (
		body?.param === 'temperature' ||
		(error.param ?? '') === 'temperature' ||
		(/temperature/i.test(error.message) &&
			/unsupported|not support|only the default/i.test(error.message))
	)
}

/** The JSON schema a structured answer must follow (all fields required, nothing else). */
export function jsonSchemaFor(fields: OutputField[]) {
	return {
		type: 'object',
		properties: Object.fromEntries(fields.map((f) => [f.name, { type: f.type }])),
		required: fields.map((f) => f.name),
		additionalProperties: false,
	}
}

/** Checks a model's JSON answer against the fields; throws bad-output with the reason. */
export function parseJsonAnswer(content: string, fields: OutputField[]) {
	let value: unknown
	try {
		value = JSON.parse(content)
	} catch {
		throw new ModelError('bad-output', 'The model did not answer valid JSON.')
	}
	if (!value || typeof value !== 'object' || Array.isArray(value))
		throw new ModelError('bad-output', 'The model did not answer a JSON object.')
	const out: Record<string, string | number | boolean | null> = {}
	for (const field of fields) {
		const v = (value as Record<string, unknown>)[field.name]
		if (v === undefined || v === null) {
			out[field.name] = null
			continue
		}
		if (typeof v !== field.type)
			throw new ModelError(
				'bad-output',
				`The model's “${field.name}” is a ${typeof v}, not a ${field.type}.`,
			)
		out[field.name] = v as string | number | boolean
	}
	return out
}

export type ModelClient = ReturnType<typeof createModelClient>

export function createModelClient(options: {
	baseUrl: string
	apiKey: string
	timeoutMs?: number
	/** the base URL is an account's own (not OPENAI_BASE_URL): outbound.server.ts guards it */
	userUrl?: boolean
}) {
	let openai: OpenAI | undefined
	/** models that refused a temperature: asked without it from then on */
	const noTemperature = new Set<string>()
	return {
		/** One chat completion: a string for text, an object of the fields for JSON. */
		async complete(request: {
			model: string
			prompt: string
			/** left out when unset, and for models that refuse it */
			temperature?: number | null
			format: OutputFormat
			signal?: AbortSignal
		}): Promise<string | Record<string, string | number | boolean | null>> {
			let content: string | null | undefined
			// loaded at the first model call: the package holds about 6 MB of heap, and V8 grows
			// the old space from what stays live (decision 0055)
			const sdk = await import('openai')
			openai ??= new sdk.default({
				apiKey: options.apiKey,
				baseURL: options.baseUrl.replace(/\/$/, ''),
				maxRetries: 0,
				timeout: options.timeoutMs ?? 60_000,
				...(options.userUrl ? { fetch: userUrlFetch } : {}),
			})
			const ask = (withTemperature: boolean) =>
				openai!.chat.completions.create(
					{
						model: request.model,
						...(withTemperature && request.temperature != null
							? { temperature: request.temperature }
							: {}),
						messages: [
							{
								role: 'system',
								content:
									request.format.kind === 'json'
										? 'Answer with one JSON object holding exactly the requested fields.'
										: 'Answer with the requested value only, without quotes or explanations.',
							},
							{ role: 'user', content: request.prompt },
						],
						...(request.format.kind === 'json'
							? {
									response_format: {
										type: 'json_schema' as const,
										json_schema: {
											name: 'enrichment',
											strict: true,
											schema: jsonSchemaFor(request.format.fields),
										},
									},
								}
							: {}),
					},
					{ signal: request.signal },
				)
			try {
				let completion
				try {
					completion = await ask(!noTemperature.has(request.model))
				} catch (error) {
					if (!refusesTemperature(error, sdk)) throw error
					noTemperature.add(request.model)
					completion = await ask(false)
				}
				// a 200 without choices[].message is not an answer (zod at the boundary)
				const parsed = completionAnswer.safeParse(completion)
				if (!parsed.success)
					throw new ModelError(
						'unavailable',
						'The AI provider sent an answer that is not a chat completion.',
					)
				content = parsed.data.choices[0]?.message.content
			} catch (error) {
				throw describe(error, request.model, sdk)
			}
			if (request.format.kind === 'json')
				return parseJsonAnswer(content ?? '', request.format.fields)
			return (content ?? '').trim()
		},
	}
}

const modelsAnswer = z.object({ data: z.array(z.object({ id: z.string() })) })

/**
 * Tests a key with a cheap authenticated call: GET {baseUrl}/models. `keyChecked` is false
 * when the provider lists its models without any key too (OpenRouter, Ollama): then this
 * call says nothing of the key.
 */
export async function listModels(options: { baseUrl: string; apiKey: string; userUrl?: boolean }) {
	const client = (headers: Record<string, string>) =>
		createHttpClient({
			baseURL: options.baseUrl.replace(/\/$/, ''),
			headers,
			timeoutMs: 15_000,
			retryDelayMs: 300,
			userUrl: options.userUrl,
		})
	try {
		const { data: body } = await client({ Authorization: `Bearer ${options.apiKey}` }).checked(
			modelsAnswer,
			'/models',
		)
		const models = body.data.map((m) => m.id)
		const keyChecked = await client({})
			.request('/models')
			.then(
				() => false,
				() => true,
			)
		return { models, keyChecked }
	} catch (error) {
		if (error instanceof NetworkError)
			throw new ModelError(error.blocked ? 'url' : 'unavailable', COULD_NOT_CONNECT)
		if (error instanceof HttpError) {
			if (error.status === 401 || error.status === 403)
				throw new ModelError('key', 'The provider refused this API key.')
			if (error.status === 404)
				throw new ModelError('other', 'No models endpoint at this base URL. Check the base URL.')
			throw new ModelError('unavailable', `The provider answered ${error.status}.`)
		}
		if (error instanceof Error && error.name === 'MalformedAnswerError')
			throw new ModelError(
				'other',
				'The provider did not answer a model list: check the base URL (it usually ends in /v1).',
			)
		throw error
	}
}
