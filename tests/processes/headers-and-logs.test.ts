import http from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
	signUpOverHttp,
	startServerProcess,
	type ServerProcess,
} from '../support/server-process.ts'

// Issue 32 point 10, on the built server as it runs: a signed-in answer is never kept by a
// browser or a shared cache, and a client's mistake is a warning in the log, not an error.

let web: ServerProcess
const BODY_LIMIT = 2048

beforeAll(async () => {
	web = await startServerProcess(process.env.DATABASE_URL!, {
		LOG_LEVEL: 'info',
		WORKERS: '0',
		BODY_LIMIT_BYTES: String(BODY_LIMIT),
	})
}, 120_000)

afterAll(() => {
	web?.child.kill('SIGKILL')
})

/** The log lines written from now on, parsed (pino writes one JSON object a line). */
function logFrom(offset: number) {
	return web
		.output()
		.slice(offset)
		.split('\n')
		.filter((line) => line.startsWith('{'))
		.map((line) => JSON.parse(line) as { level: number; msg: string; [key: string]: unknown })
}

describe('Cache-Control', () => {
	test('every answer to a signed-in request says private, no-store', async () => {
		const cookie = await signUpOverHttp(web.url, `cache-${Date.now()}@example.com`)
		const answers = []
		for (const [path, init] of [
			['/', {}],
			['/onboarding', {}],
			['/settings', {}],
			['/settings.data', {}],
			['/_root.data', {}],
			['/purchase', {}],
			['/lists/00000000-0000-4000-8000-000000000000', {}],
			['/no-such-page', {}],
			['/signin', {}],
			// a form with an error (400) and one that redirects
			['/settings', { method: 'POST', body: new URLSearchParams({ intent: 'nothing' }) }],
		] as const) {
			const response = await fetch(`${web.url}${path}`, {
				redirect: 'manual',
				...init,
				headers: { cookie, Origin: web.url },
			})
			await response.arrayBuffer()
			answers.push(`${init.method ?? 'GET'} ${path} ${response.headers.get('cache-control')}`)
		}
		expect(answers).toEqual(answers.map((a) => a.replace(/\S+(, \S+)?$/, 'private, no-store')))
	})
})

describe('the log', () => {
	test("an anonymous client's mistakes are warnings with their status, without a stack", async () => {
		const from = web.output().length
		async function* overLimit() {
			for (let i = 0; i < 4; i++) yield new Uint8Array(1024).fill(97)
		}
		const answers = [
			// a chunked body over the limit, counted as it is read
			await fetch(`${web.url}/signin`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: web.url },
				body: overLimit() as never,
				duplex: 'half',
			} as RequestInit),
			// a method the page view pixel does not take
			await fetch(`${web.url}/analytics/pv`, { method: 'POST', headers: { Origin: web.url } }),
			// a malformed escape
			await fetch(`${web.url}/lists/%ff`, { redirect: 'manual' }),
		]
		expect(answers.slice(0, 2).map((a) => a.status)).toEqual([413, 405])
		await new Promise((resolve) => setTimeout(resolve, 300))
		const entries = logFrom(from).filter((entry) => entry.level >= 40)
		expect(entries.filter((entry) => entry.level >= 50)).toEqual([])
		expect(JSON.stringify(entries)).not.toContain('stack')
		// the 405 always reaches the log; the 413's body read may end with the connection, unlogged
		expect(entries.map((entry) => entry.status)).toContain(405)
		for (const entry of entries) expect(entry.status).toBeOneOf([400, 405, 413])
	})
})

describe('keep-alive', () => {
	// A client that pauses between requests (a proxy's pooled connection, a browser, a script)
	// keeps its connection: with Node's 5 s (and 1 s of grace) the server closed it as the next request went out,
	// and that request died with ECONNRESET (a browser test in CI).
	test('a connection idle for 7 s still carries the next request', async () => {
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
		const get = () =>
			new Promise<{ status: number; reused: boolean; keepAlive: string }>((resolve, reject) => {
				const request = http.get(`${web.url}/signin`, { agent }, (response) => {
					response.resume()
					response.on('end', () =>
						resolve({
							status: response.statusCode ?? 0,
							reused: request.reusedSocket,
							keepAlive: String(response.headers['keep-alive']),
						}),
					)
				})
				request.on('error', reject)
			})
		try {
			const first = await get()
			await new Promise((resolve) => setTimeout(resolve, 7_000))
			const second = await get()
			expect([first.status, second.status]).toEqual([200, 200])
			expect(second.reused).toBe(true)
			expect(first.keepAlive).toMatch(/timeout=(6\d|[7-9]\d|\d{3,})\b/)
		} finally {
			agent.destroy()
		}
	}, 30_000)
})
