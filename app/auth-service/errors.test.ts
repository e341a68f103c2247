// The HTTP envelope of the service: error formats, status codes and routing, checked on
// service.fetch directly (what auth-js relies on when it parses a response).
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestAuthServer, type TestAuthServer } from './testing.server.ts'

let server: TestAuthServer

beforeAll(async () => {
	server = await startTestAuthServer({ BODY_LIMIT_BYTES: '2048' })
})
afterAll(async () => {
	await server?.close()
})

function call(path: string, init: RequestInit & { version?: string | null } = {}) {
	const { version = '2024-01-01', ...rest } = init
	const headers = new Headers(rest.headers)
	if (version) headers.set('X-Supabase-Api-Version', version)
	if (rest.body && !headers.has('content-type')) headers.set('content-type', 'application/json')
	return server.service.fetch(new Request(`${server.url}/auth/v1${path}`, { ...rest, headers }))
}

// A new address each time: failed sign-ins of one address from one IP back off after three.
const signInBody = () =>
	JSON.stringify({ email: `nobody-${crypto.randomUUID()}@example.com`, password: 'whatever 1' })

describe('error formats', () => {
	test('with X-Supabase-Api-Version: {code, message}, header echoed, x-sb-error-code', async () => {
		const response = await call('/token?grant_type=password', {
			method: 'POST',
			body: signInBody(),
		})
		expect(response.status).toBe(400)
		expect(response.headers.get('x-supabase-api-version')).toBe('2024-01-01')
		expect(response.headers.get('x-sb-error-code')).toBe('invalid_credentials')
		expect(response.headers.get('content-type')).toBe('application/json')
		expect(await response.json()).toEqual({
			code: 'invalid_credentials',
			message: 'Invalid login credentials',
		})
	})

	test('a later API version gets the closest known one back', async () => {
		const response = await call('/token?grant_type=password', {
			method: 'POST',
			body: signInBody(),
			version: '2025-06-01',
		})
		expect(response.headers.get('x-supabase-api-version')).toBe('2024-01-01')
		expect((await response.json()).code).toBe('invalid_credentials')
	})

	test('without the header (or with a malformed one): legacy {code: status, error_code, msg}', async () => {
		for (const version of [null, 'yesterday']) {
			const response = await call('/token?grant_type=password', {
				method: 'POST',
				body: signInBody(),
				version,
			})
			expect(response.status).toBe(400)
			expect(response.headers.get('x-supabase-api-version')).toBeNull()
			expect(response.headers.get('x-sb-error-code')).toBe('invalid_credentials')
			expect(await response.json()).toEqual({
				code: 400,
				error_code: 'invalid_credentials',
				msg: 'Invalid login credentials',
			})
		}
	})

	test('weak_password carries its reasons in both formats', async () => {
		const body = JSON.stringify({ email: 'weak@example.com', password: 'abc' })
		const current = await call('/signup', { method: 'POST', body })
		expect(current.status).toBe(422)
		expect(await current.json()).toMatchObject({
			code: 'weak_password',
			weak_password: { reasons: ['length', 'characters'] },
		})
		const legacy = await call('/signup', { method: 'POST', body, version: null })
		expect(await legacy.json()).toMatchObject({
			code: 422,
			error_code: 'weak_password',
			weak_password: { reasons: ['length', 'characters'] },
		})
	})

	test('refresh grant without a refresh token: OAuth-style 400', async () => {
		const response = await call('/token?grant_type=refresh_token', { method: 'POST', body: '{}' })
		expect(response.status).toBe(400)
		expect(await response.json()).toEqual({
			error: 'invalid_request',
			error_description: 'refresh_token required',
		})
	})

	test('an unsupported grant type', async () => {
		const response = await call('/token?grant_type=client_credentials', {
			method: 'POST',
			body: '{}',
		})
		expect(response.status).toBe(400)
		expect(await response.json()).toEqual({
			code: 'invalid_credentials',
			message: 'unsupported_grant_type',
		})
	})
})

describe('requests', () => {
	test('no Authorization: 401 no_authorization; a non-JWT: 403 bad_jwt', async () => {
		const none = await call('/user')
		expect(none.status).toBe(401)
		expect((await none.json()).code).toBe('no_authorization')
		const admin = await call('/admin/users')
		expect(admin.status).toBe(401)
		const garbage = await call('/user', { headers: { Authorization: 'Bearer not.a.jwt' } })
		expect(garbage.status).toBe(403)
		expect((await garbage.json()).code).toBe('bad_jwt')
	})

	test('the anon key is a JWT without a user: GET /user is bad_jwt, admin is not_admin', async () => {
		const user = await call('/user', {
			headers: { Authorization: `Bearer ${server.service.anonKey}` },
		})
		expect(user.status).toBe(403)
		expect((await user.json()).code).toBe('bad_jwt')
		const admin = await call('/admin/users', {
			headers: { Authorization: `Bearer ${server.service.anonKey}` },
		})
		expect(admin.status).toBe(403)
		expect((await admin.json()).code).toBe('not_admin')
		const claims = JSON.parse(
			Buffer.from(server.service.serviceRoleKey.split('.')[1]!, 'base64url').toString(),
		)
		expect(claims).toMatchObject({ role: 'service_role', iss: `${server.url}/auth/v1` })
	})

	test('a body over BODY_LIMIT_BYTES is 413, by Content-Length or as it streams', async () => {
		const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(4000) })
		const declared = await call('/signup', { method: 'POST', body: big })
		expect(declared.status).toBe(413)
		expect(await declared.json()).toEqual({
			code: 'request_entity_too_large',
			message: 'Request body too large (max 2048 bytes)',
		})
		const stream = new ReadableStream({
			start(controller) {
				controller.enqueue(new TextEncoder().encode(big))
				controller.close()
			},
		})
		const streamed = await server.service.fetch(
			new Request(`${server.url}/auth/v1/signup`, {
				method: 'POST',
				body: stream,
				duplex: 'half',
			} as RequestInit),
		)
		expect(streamed.status).toBe(413)
	})

	test('malformed JSON is 400 bad_json', async () => {
		const response = await call('/signup', { method: 'POST', body: '{"email":' })
		expect(response.status).toBe(400)
		expect((await response.json()).code).toBe('bad_json')
	})

	test('unknown paths are 404 JSON; wrong methods 405', async () => {
		const missing = await call('/nothing-here')
		expect(missing.status).toBe(404)
		expect(await missing.json()).toEqual({ code: 'not_found', message: 'Not Found' })
		const outside = await server.service.fetch(new Request(`${server.url}/elsewhere`))
		expect(outside.status).toBe(404)
		const wrong = await call('/signup')
		expect(wrong.status).toBe(405)
	})

	test('logout answers 204 without a body', async () => {
		const signup = await call('/signup', {
			method: 'POST',
			body: JSON.stringify({ email: 'bye@example.com', password: 'good pass 12' }),
		})
		const { access_token } = await signup.json()
		const response = await call('/logout?scope=local', {
			method: 'POST',
			headers: { Authorization: `Bearer ${access_token}` },
		})
		expect(response.status).toBe(204)
		expect(await response.text()).toBe('')
		const bad = await call('/logout?scope=everywhere', {
			method: 'POST',
			headers: { Authorization: `Bearer ${access_token}` },
		})
		expect(bad.status).toBe(400)
	})
})
