import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { db } from '../../../db/index.server.ts'
import { loadAccountContext } from '../../context.server.ts'
import { screens } from '../../routes.ts'
import { insertSubscription, insertUser } from '../../../tests/support/factories.ts'
import { answerApiRequest } from './endpoint.server.ts'
import { createApiToken } from '../api-tokens/api-tokens.server.ts'
import { API_SCOPES } from '../api-tokens/scopes.ts'
import { matchOperation } from './handler.server.ts'
import { buildOpenApi } from './openapi.ts'
import { API_OPERATIONS } from './operations.server.ts'
import { ApiProblem } from './problem.server.ts'

// The served document and the routes agree: every operation is in it, every documented path
// and method is routed, and what it says a body needs is what the route refuses without.

type Doc = {
	openapi: string
	paths: Record<
		string,
		Record<
			string,
			{
				operationId: string
				parameters?: { name: string; in: string }[]
				requestBody?: { content: Record<string, { schema: { required?: string[] } }> }
			}
		>
	>
	webhooks?: Record<string, unknown>
	components: { schemas: Record<string, unknown> }
}

async function served(): Promise<Doc> {
	const request = new Request('http://localhost/api/v1/openapi.json')
	const response = await answerApiRequest(request)
	expect(response.status).toBe(200)
	return (await response.json()) as Doc
}

describe('the OpenAPI document', () => {
	test('is OpenAPI 3.1 and holds every operation of the API, with its parameters', async () => {
		const doc = await served()
		expect(doc.openapi).toBe('3.1.0')
		for (const operation of API_OPERATIONS) {
			const entry = doc.paths[operation.path]?.[operation.method.toLowerCase()]
			expect(entry, `${operation.method} ${operation.path}`).toBeDefined()
			expect(entry!.operationId).toBe(operation.id)
			const documented = (entry!.parameters ?? [])
				.filter((p) => p.in !== 'header')
				.map((p) => p.name)
				.sort()
			const accepted = [
				...Object.keys(operation.params?.shape ?? {}),
				...Object.keys(operation.query?.shape ?? {}),
			].sort()
			expect(documented, operation.id).toEqual(accepted)
		}
	})

	test('every documented path and method is routed', async () => {
		const doc = await served()
		for (const [path, methods] of Object.entries(doc.paths)) {
			for (const method of Object.keys(methods)) {
				const concrete = path.replace(/\{\w+\}/g, crypto.randomUUID())
				const matched = matchOperation(API_OPERATIONS, method.toUpperCase(), concrete)
				expect(matched instanceof ApiProblem, `${method} ${path}`).toBe(false)
			}
		}
	})

	test("a JSON body's documented required fields are the ones the route refuses without", async () => {
		const user = await insertUser(db)
		await insertSubscription(db, user.id)
		const account = await loadAccountContext(db, user)
		const { token } = await createApiToken(account, {
			name: 'doc',
			scopes: API_SCOPES.filter((s) => s.endsWith(':write')),
			workspaceIds: [],
		})
		const doc = await served()
		for (const operation of API_OPERATIONS) {
			if (!operation.body || operation.bodyFormat) continue
			const entry = doc.paths[operation.path]![operation.method.toLowerCase()]!
			const required = entry.requestBody!.content['application/json']!.schema.required ?? []
			const path = operation.path.replace(/\{\w+\}/g, crypto.randomUUID())
			const request = new Request(`http://localhost/api/v1${path}`, {
				method: operation.method,
				headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
				body: '{}',
			})
			const response = await answerApiRequest(request)
			expect(response.status, operation.id).toBe(400)
			const problem = (await response.json()) as { errors: { field: string }[] }
			expect([...new Set(problem.errors.map((e) => e.field))].sort(), operation.id).toEqual(
				[...required].sort(),
			)
		}
	})

	test('holds the EmailBison uploads and documents their finished event', async () => {
		const doc = await served()
		expect(Object.keys(doc.paths['/emailbison-uploads'] ?? {}).sort()).toEqual(['get', 'post'])
		expect(doc.paths['/emailbison-uploads/{id}']).toHaveProperty('get')
		expect(doc.paths['/emailbison-uploads/{id}/report']).toHaveProperty('get')
		expect(doc.components.schemas).toHaveProperty('EmailBisonUploadReport')
		expect(doc.webhooks).toHaveProperty('emailbison_upload.finished')
	})

	test('every write names the screen doing the same, whose plan rule it follows', () => {
		const screenNames = new Set<string>(screens.map((s) => s.name))
		for (const operation of API_OPERATIONS.filter((o) => o.method !== 'GET')) {
			const screen = (operation as { screen?: string }).screen
			expect(screen && screenNames.has(screen), operation.id).toBe(true)
		}
	})

	test('takes the webhook events as a map of schemas', () => {
		const doc = buildOpenApi({
			operations: API_OPERATIONS,
			serverUrl: 'http://localhost/api/v1',
			webhooks: {
				'list.import.finished': z.object({ id: z.string() }).meta({ id: 'ListImportFinished' }),
			},
		}) as unknown as Doc
		expect(doc.webhooks).toHaveProperty('list.import.finished')
		expect(doc.components.schemas).toHaveProperty('ListImportFinished')
	})
})
