// A local fake of an OpenAI-compatible API (GET /v1/models, POST /v1/chat/completions). It
// follows, and must be no stricter or looser than, OpenAI's documented shapes and its error
// bodies as users report them:
// - Bearer auth (401 invalid_api_key), unknown models (404 model_not_found), JSON output with
//   response_format json_object or json_schema (platform.openai.com/docs/api-reference/chat,
//   /docs/guides/error-codes);
// - gpt-5 and o-series (reasoning) models take only their default temperature: any other value
//   is 400 {"error":{"message":"Unsupported value: 'temperature' does not support 0 with this
//   model. Only the default (1) value is supported.","type":"invalid_request_error",
//   "param":"temperature","code":"unsupported_value"}} (the reasoning-models guide lists
//   temperature as unsupported; the body as users report it on community.openai.com); a
//   request without a temperature is answered;
// - an empty account answers 429 insufficient_quota (/docs/guides/error-codes: "You exceeded
//   your current quota"), not a rate limit (`setOutOfQuota`);
// - some providers (OpenRouter, Ollama) list models without a key (`modelsWithoutKey`).
// Knobs for tests: a delay per call, 429s with Retry-After, 500s, malformed JSON.
// Deterministic answers: text is `AI(<model>): <first user message>`; JSON fills every
// field the schema names from the prompt. A prompt containing EMPTY is answered with
// an empty string (or empty fields), one containing MALFORMED with broken JSON.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeOpenAI = {
	url: string
	apiKey: string
	models: string[]
	/** every chat completion's prompt (the user message), in arrival order */
	calls: string[]
	/** all requests including refused ones, as "METHOD /path status" */
	requests: string[]
	/** every Bearer key received, in arrival order (wrong ones too) */
	keysReceived: string[]
	/**
	 * every chat completion request (refused ones too): when it arrived (ms), its prompt, and
	 * the temperature it carried (undefined: none sent)
	 */
	arrivals: { at: number; prompt: string; temperature?: number }[]
	setDelay(ms: number): void
	/** answer 429 with Retry-After to the next N chat calls */
	rateLimitNext(n: number, retryAfterSeconds?: number): void
	/** answer 500 to the next N chat calls */
	failNext(n: number): void
	/** answer 429 insufficient_quota to every chat call */
	setOutOfQuota(on: boolean): void
	reset(): void
	close(): Promise<void>
}

type ChatBody = {
	model?: string
	messages?: { role: string; content: string }[]
	temperature?: number
	response_format?: {
		type: string
		json_schema?: { schema?: { properties?: Record<string, { type?: string }> } }
	}
}

function answer(body: ChatBody): string {
	const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? ''
	const empty = user.includes('EMPTY')
	if (user.includes('MALFORMED')) return '{"oops": '
	const format = body.response_format?.type
	if (format === 'json_schema' || format === 'json_object') {
		const properties = body.response_format?.json_schema?.schema?.properties ?? { answer: {} }
		const out: Record<string, unknown> = {}
		for (const [name, spec] of Object.entries(properties)) {
			if (spec.type === 'number' || spec.type === 'integer') out[name] = empty ? 0 : user.length
			else if (spec.type === 'boolean') out[name] = !empty
			else out[name] = empty ? '' : `${name}: ${user.slice(0, 40)}`
		}
		return JSON.stringify(out)
	}
	return empty ? '' : `AI(${body.model}): ${user}`
}

export async function startFakeOpenAI(
	options: {
		apiKey?: string
		port?: number
		models?: string[]
		delayMs?: number
		/** GET /models answers without a key (as OpenRouter's and Ollama's do) */
		modelsWithoutKey?: boolean
	} = {},
): Promise<FakeOpenAI> {
	const apiKey = options.apiKey ?? 'sk-fake-openai-0000000000000000'
	const models = options.models ?? ['gpt-4o-mini', 'gpt-4.1']
	let outOfQuota = false
	const calls: string[] = []
	const requests: string[] = []
	const keysReceived: string[] = []
	const arrivals: FakeOpenAI['arrivals'] = []
	let delay = options.delayMs ?? 0
	let limited = 0
	let retryAfter = 1
	let failing = 0
	let counter = 0

	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://fake')
		const chunks: Buffer[] = []
		req.on('data', (c: Buffer) => chunks.push(c))
		req.on('end', () => {
			const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
				requests.push(`${req.method} ${url.pathname} ${status}`)
				res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
				res.end(JSON.stringify(body))
			}
			const error = (
				status: number,
				code: string,
				message: string,
				type: string,
				param: string | null = null,
			) => send(status, { error: { message, type, param, code } })
			const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
			if (bearer) keysReceived.push(bearer)
			const open =
				options.modelsWithoutKey &&
				req.method === 'GET' &&
				url.pathname.replace(/^\/v1/, '') === '/models'
			if (!open && req.headers.authorization !== `Bearer ${apiKey}`) {
				return error(
					401,
					'invalid_api_key',
					'Incorrect API key provided. You can find your API key in your account settings.',
					'invalid_request_error',
				)
			}
			const path = url.pathname.replace(/^\/v1/, '')
			if (req.method === 'GET' && path === '/models') {
				return send(200, {
					object: 'list',
					data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })),
				})
			}
			if (req.method === 'POST' && path === '/chat/completions') {
				const at = Date.now()
				let body: ChatBody
				try {
					body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody
					arrivals.push({
						at,
						prompt:
							[...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '',
						temperature: body.temperature,
					})
				} catch {
					return error(
						400,
						'invalid_json',
						'We could not parse the JSON body.',
						'invalid_request_error',
					)
				}
				if (!body.model || !models.includes(body.model)) {
					return error(
						404,
						'model_not_found',
						`The model \`${body.model}\` does not exist or you do not have access to it.`,
						'invalid_request_error',
					)
				}
				// reasoning models take only the default temperature
				if (
					/^(gpt-5|o\d)/.test(body.model) &&
					body.temperature !== undefined &&
					body.temperature !== 1
				)
					return error(
						400,
						'unsupported_value',
						`Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
						'invalid_request_error',
						'temperature',
					)
				if (outOfQuota)
					return error(
						429,
						'insufficient_quota',
						'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
						'insufficient_quota',
					)
				if (limited > 0) {
					limited -= 1
					return send(
						429,
						{
							error: {
								message: 'Rate limit reached for requests.',
								type: 'requests',
								param: null,
								code: 'rate_limit_exceeded',
							},
						},
						{ 'Retry-After': String(retryAfter) },
					)
				}
				if (failing > 0) {
					failing -= 1
					return error(500, 'server_error', 'The server had an error.', 'server_error')
				}
				const user =
					[...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? ''
				const reply = () => {
					calls.push(user)
					counter += 1
					send(200, {
						id: `chatcmpl-fake-${counter}`,
						object: 'chat.completion',
						created: Math.floor(Date.now() / 1000),
						model: body.model,
						choices: [
							{
								index: 0,
								message: { role: 'assistant', content: answer(body), refusal: null },
								finish_reason: 'stop',
								logprobs: null,
							},
						],
						usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
					})
				}
				if (delay > 0) setTimeout(reply, delay)
				else reply()
				return
			}
			return error(404, 'not_found', `Unknown path ${url.pathname}`, 'invalid_request_error')
		})
	})
	server.keepAliveTimeout = 60_000
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	const { port } = server.address() as AddressInfo
	return {
		url: `http://127.0.0.1:${port}/v1`,
		apiKey,
		models,
		calls,
		requests,
		keysReceived,
		arrivals,
		setDelay: (ms) => {
			delay = ms
		},
		rateLimitNext: (n, seconds = 1) => {
			limited = n
			retryAfter = seconds
		},
		failNext: (n) => {
			failing = n
		},
		setOutOfQuota: (on) => {
			outOfQuota = on
		},
		reset: () => {
			calls.length = 0
			requests.length = 0
			keysReceived.length = 0
			arrivals.length = 0
			limited = 0
			failing = 0
			outOfQuota = false
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections()
				server.close(() => resolve())
			}),
	}
}
