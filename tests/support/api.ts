import { db } from '../../db/index.server.ts'
import { loadAccountContext } from '../../app/context.server.ts'
import { answerApiRequest } from '../../app/services/api/endpoint.server.ts'
import { createApiToken } from '../../app/services/api-tokens/api-tokens.server.ts'
import type { ApiScope } from '../../app/services/api-tokens/scopes.ts'
import { insertSubscription, insertUser } from './factories.ts'

// The public API as a client meets it: requests through the API's fetch handler with real tokens.

type User = { id: string; email: string }

/** A subscribed account owner. */
export async function apiOwner() {
	const user = await insertUser(db)
	await insertSubscription(db, user.id)
	return user
}

/** A token made as the Developers page makes it. */
export async function tokenFor(user: User, scopes: ApiScope[], workspaceIds: string[] = []) {
	const account = await loadAccountContext(db, user)
	return (await createApiToken(account, { name: 'test', scopes, workspaceIds })).token
}

/** One request to /api/v1: status, headers, the text and the JSON body as a client reads them. */
export async function apiCall(
	method: string,
	pathname: string,
	options: {
		token?: string
		json?: unknown
		body?: BodyInit
		headers?: Record<string, string>
	} = {},
) {
	const headers = new Headers(options.headers)
	if (options.token) headers.set('Authorization', `Bearer ${options.token}`)
	let body = options.body
	if (options.json !== undefined) {
		headers.set('Content-Type', 'application/json')
		body = JSON.stringify(options.json)
	}
	const request = new Request(`http://localhost/api/v1${pathname}`, { method, headers, body })
	const response = await answerApiRequest(request)
	const text = await response.text()
	return {
		status: response.status,
		headers: response.headers,
		text,
		body:
			text && /json/.test(response.headers.get('Content-Type') ?? '')
				? (JSON.parse(text) as Record<string, any>)
				: null,
	}
}
