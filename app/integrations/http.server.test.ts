import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { createHttpClient, HttpError, NetworkError, parseJsonAnswer } from './http.server.ts'

// A tiny server whose next answers we script, counting the calls it gets.
let script: {
	status: number
	body?: unknown
	headers?: Record<string, string>
	delayMs?: number
}[] = []
let calls: string[] = []
const server = http.createServer((req, res) => {
	calls.push(`${req.method} ${req.url}`)
	const next = script.shift() ?? { status: 200, body: { ok: true } }
	setTimeout(() => {
		res.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers })
		res.end(JSON.stringify(next.body ?? {}))
	}, next.delayMs ?? 0)
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(() => new Promise((resolve) => server.close(resolve)))

beforeEach(() => {
	script = []
	calls = []
})

// the keep-alive transport (high-rate GETs, decision 0099) behaves as fetch does
describe.each(['fetch', 'keep-alive'] as const)(
	'outgoing HTTP defaults (SPEC.md section 7), %s',
	(transport) => {
		const client = createHttpClient({ baseURL, retryDelayMs: 1, transport })

		test('the query is encoded and a JSON answer read', async () => {
			script = [{ status: 200, body: { ok: 2 } }]
			expect(
				await client.json('/thing', { query: { email: 'a+b@x.com', skip: undefined, n: 3 } }),
			).toEqual({
				ok: 2,
			})
			const url = new URL(calls[0]!.slice('GET '.length), baseURL)
			expect([url.pathname, ...url.searchParams]).toEqual([
				'/thing',
				['email', 'a+b@x.com'],
				['n', '3'],
			])
		})

		test('an answer slower than the timeout is a NetworkError saying so', async () => {
			script = [
				{ status: 200, delayMs: 300 },
				{ status: 200, delayMs: 300 },
			]
			const error = await client.json('/slow', { timeoutMs: 50 }).catch((e: unknown) => e)
			expect(error).toBeInstanceOf(NetworkError)
			expect(String((error as Error).message)).toMatch(/timeout|aborted/i)
		})

		test.each([408, 409, 425, 429, 500, 502, 503, 504])(
			'a GET is retried once on %i',
			async (status) => {
				script = [{ status }, { status: 200, body: { ok: 1 } }]
				expect(await client.json('/thing')).toEqual({ ok: 1 })
				expect(calls).toEqual(['GET /thing', 'GET /thing'])
			},
		)

		test('only once: a second failure is an error with status and body', async () => {
			script = [{ status: 503 }, { status: 503, body: { message: 'down' } }, { status: 200 }]
			const error = await client.json('/thing').catch((e) => e)
			expect(error).toBeInstanceOf(HttpError)
			expect(error).toMatchObject({ status: 503, body: { message: 'down' } })
			expect(calls).toHaveLength(2)
		})

		test.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
			'%s is never retried',
			async (method) => {
				script = [{ status: 503 }, { status: 200 }]
				await expect(client.json('/thing', { method, body: { a: 1 } })).rejects.toMatchObject({
					status: 503,
				})
				expect(calls).toEqual([`${method} /thing`])
			},
		)

		test('4xx statuses are errors and not retried; Retry-After is read', async () => {
			script = [{ status: 422, body: { errors: { email: ['bad'] } } }]
			await expect(client.json('/thing')).rejects.toMatchObject({ status: 422, retryable: false })
			expect(calls).toHaveLength(1)
			script = [
				{ status: 429, headers: { 'Retry-After': '7' } },
				{ status: 429, headers: { 'Retry-After': '7' } },
			]
			await expect(client.json('/thing')).rejects.toMatchObject({
				status: 429,
				retryAfterSeconds: 7,
				retryable: true,
			})
		})
	},
)

describe('answers read with JSON.parse (parseJsonAnswer)', () => {
	const fast = createHttpClient({ baseURL, retryDelayMs: 1, parseResponse: parseJsonAnswer })

	test('reads JSON as JSON and an answer that is not JSON as its text', async () => {
		script = [{ status: 200, body: { data: [{ id: 1, email: 'a@b.co' }] } }]
		expect(await fast.json('/leads')).toEqual({ data: [{ id: 1, email: 'a@b.co' }] })
		expect(parseJsonAnswer('<html>Bad gateway</html>')).toBe('<html>Bad gateway</html>')
		expect(parseJsonAnswer('{not json')).toBe('{not json')
		expect(parseJsonAnswer('')).toBe('')
		expect(parseJsonAnswer('42')).toBe(42)
	})

	test('drops prototype keys as destr does, so nothing copied from an answer changes a prototype', () => {
		const parsed = parseJsonAnswer(
			'{"data":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"name":"x"}}',
		) as { data: Record<string, unknown> }
		expect(Object.keys(parsed.data)).toEqual(['name'])
		expect(Object.assign({}, parsed.data)).not.toHaveProperty('polluted')
		expect(({} as Record<string, unknown>).polluted).toBeUndefined()
	})
})
