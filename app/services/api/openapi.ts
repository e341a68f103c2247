import { z } from 'zod'
import type { ApiOperation } from './operation.ts'

// The OpenAPI 3.1 document of /api/v1, made from the operations' own zod schemas (zod 4's
// JSON Schema output is draft 2020-12, which OpenAPI 3.1 uses as it is): what a route checks
// and what the document says cannot drift apart. Schemas with a `.meta({ id })` become
// components. `webhooks` (event name to payload schema) fills the document's webhooks section.

type Json = Record<string, unknown>

const Problem = z
	.object({
		type: z.string(),
		title: z.string(),
		status: z.number().int(),
		code: z.string().meta({ description: 'A machine code, e.g. not_found, rate_limited.' }),
		detail: z.string(),
		field: z.string().optional().meta({ description: 'The first field at fault.' }),
		errors: z
			.array(z.object({ field: z.string(), code: z.string(), message: z.string() }))
			.optional(),
	})
	.meta({ id: 'Problem', description: 'RFC 9457 problem details.' })

const ERRORS: Record<string, string> = {
	'400': 'The request is not valid (see `errors`).',
	'401': 'No token, or an unknown or revoked one.',
	'403': 'The token (or its maker) may not do this.',
	'404': 'Not found, or not visible to this token.',
	'429': 'Too many requests: wait `Retry-After` seconds.',
}

function converter(components: Record<string, Json>) {
	const rewrite = (node: unknown): unknown => {
		if (Array.isArray(node)) return node.map(rewrite)
		if (!node || typeof node !== 'object') return node
		const out: Json = {}
		for (const [key, value] of Object.entries(node as Json)) {
			if (key === '$schema') continue
			if (key === '$defs') {
				for (const [id, def] of Object.entries(value as Record<string, Json>)) {
					components[id] = rewrite(def) as Json
				}
				continue
			}
			out[key] =
				key === '$ref' && typeof value === 'string'
					? value.replace('#/$defs/', '#/components/schemas/')
					: rewrite(value)
		}
		return out
	}
	return (schema: z.ZodType, io: 'input' | 'output') =>
		rewrite(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as Json
}

// a write whose screen needs a plan (handler.server.ts)
const PLAN_ERROR = {
	'402': "The account's plan has ended: writes need one, reads do not (code plan_required).",
}

const RATE_HEADERS = {
	'RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests a minute.' },
	'RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Left in this minute.' },
	'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds to the next minute.' },
}

function curlOf(operation: ApiOperation, baseUrl: string) {
	const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => `$${name.toUpperCase()}`)
	const lines = [
		`curl ${operation.method === 'GET' ? '' : `-X ${operation.method} `}"${baseUrl}${path}"`,
	]
	lines.push('  -H "Authorization: Bearer $LEADSMITH_TOKEN"')
	if (operation.method === 'POST') lines.push('  -H "Idempotency-Key: $(uuidgen)"')
	return lines.join(' \\\n')
}

export function buildOpenApi(options: {
	operations: readonly ApiOperation[]
	serverUrl: string
	webhooks?: Record<string, z.ZodType>
}): Json {
	const schemas: Record<string, Json> = {}
	const convert = converter(schemas)
	const paths: Record<string, Json> = {}
	for (const operation of options.operations) {
		const parameters: Json[] = []
		for (const [where, schema] of [
			['path', operation.params],
			['query', operation.query],
		] as const) {
			if (!schema) continue
			const json = convert(schema, 'input') as { properties?: Json; required?: string[] }
			for (const [name, property] of Object.entries(json.properties ?? {})) {
				const { description, ...propertySchema } = property as Json
				parameters.push({
					name,
					in: where,
					required: where === 'path' || (json.required ?? []).includes(name),
					...(description ? { description } : {}),
					schema: propertySchema,
				})
			}
		}
		if (operation.method === 'POST') {
			parameters.push({
				name: 'Idempotency-Key',
				in: 'header',
				required: false,
				description:
					'A repeat within 24 h gets the first answer and does nothing twice; the same key with another request is 422.',
				schema: { type: 'string', maxLength: 255 },
			})
		}
		const status = String(operation.status ?? 200)
		const entry: Json = {
			operationId: operation.id,
			summary: operation.summary,
			...(operation.description ? { description: operation.description } : {}),
			tags: [operation.tag],
			'x-scope': operation.scope,
			security: [{ bearerAuth: [] }],
			...(parameters.length ? { parameters } : {}),
			...(operation.body
				? {
						requestBody: {
							required: true,
							content: {
								[operation.bodyFormat && operation.bodyFormat !== 'json'
									? 'multipart/form-data'
									: 'application/json']: { schema: convert(operation.body, 'input') },
							},
						},
					}
				: {}),
			responses: {
				[status]: {
					description: 'OK',
					headers: RATE_HEADERS,
					content:
						operation.responseFormat === 'csv'
							? { 'text/csv': { schema: convert(operation.response, 'output') } }
							: { 'application/json': { schema: convert(operation.response, 'output') } },
				},
				...Object.fromEntries(
					(operation.alsoAnswers ?? []).map((answer) => [
						String(answer.status),
						{
							description: answer.description,
							headers: RATE_HEADERS,
							content: { 'application/json': { schema: convert(answer.schema, 'output') } },
						},
					]),
				),
				...Object.fromEntries(
					Object.entries({
						...ERRORS,
						...(operation.method !== 'GET' && operation.screen ? PLAN_ERROR : {}),
					}).map(([code, description]) => [
						code,
						{
							description,
							content: {
								'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
							},
						},
					]),
				),
			},
			'x-codeSamples': [{ lang: 'curl', source: curlOf(operation, options.serverUrl) }],
		}
		const path = (paths[operation.path] ??= {})
		path[operation.method.toLowerCase()] = entry
	}
	convert(Problem, 'output')
	const webhooks: Record<string, Json> = {}
	for (const [name, schema] of Object.entries(options.webhooks ?? {})) {
		webhooks[name] = {
			post: {
				operationId: `webhook.${name}`,
				summary: name,
				requestBody: { content: { 'application/json': { schema: convert(schema, 'output') } } },
				responses: { '200': { description: 'Any 2xx acknowledges the event.' } },
			},
		}
	}
	return {
		openapi: '3.1.0',
		info: {
			title: 'Leadsmith API',
			version: '1',
			description:
				'Bearer tokens from the Developers page. Cursor pagination (`limit`, `starting_after`, `next_cursor`), `Idempotency-Key` on POSTs, errors as application/problem+json, rate limits per token with `RateLimit-*` headers.',
		},
		servers: [{ url: options.serverUrl }],
		paths,
		...(Object.keys(webhooks).length ? { webhooks } : {}),
		components: {
			securitySchemes: {
				bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'ls_live_…' },
			},
			schemas,
		},
	}
}
