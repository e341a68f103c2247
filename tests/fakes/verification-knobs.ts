// The fault knobs the three email verification fakes share (MillionVerifier, ZeroBounce,
// Reacher): every request recorded, slow answers, the next N requests answered 429 with
// Retry-After or 200 with an HTML page (a proxy's error), an account out of credits, and an
// answer that counts as a check only when written to a connection still open (a client that
// hung up first, e.g. a killed worker, never got it). Each fake answers the rest its own way.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { VerifyFakeKnobs } from './verify-outcomes.ts'

export type FakeRequest = {
	req: http.IncomingMessage
	url: URL
	body: Buffer
	/** the account is out of credits (`setOutOfCredits`) */
	outOfCredits: boolean
	/** answers; a string as text/plain, anything else as JSON. False: the client hung up */
	send(status: number, body: unknown, headers?: Record<string, string>): boolean
	/** counts these addresses as checked */
	checked(...emails: string[]): void
}

/** A fake's server with the shared knobs; `answer` answers what the knobs let through. */
export async function startVerificationFake(
	port: number | undefined,
	answer: (request: FakeRequest) => void,
): Promise<VerifyFakeKnobs & { url: string }> {
	const checks: string[] = []
	const calls: string[] = []
	let delay = 0
	let limited = 0
	let retryAfter = 1
	let malformed = 0
	let noCredits = false
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://fake')
		calls.push(`${req.method} ${url.pathname}`)
		const chunks: Buffer[] = []
		req.on('data', (c: Buffer) => chunks.push(c))
		req.on('end', () => {
			const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
				if (res.destroyed || !res.socket || res.socket.destroyed || res.socket.readableEnded)
					return false
				res.writeHead(status, {
					'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json',
					...headers,
				})
				res.end(typeof body === 'string' ? body : JSON.stringify(body))
				return true
			}
			const respond = () => {
				if (limited > 0) {
					limited -= 1
					send(429, { error: 'Too Many Requests' }, { 'Retry-After': String(retryAfter) })
					return
				}
				if (malformed > 0) {
					malformed -= 1
					res.writeHead(200, { 'Content-Type': 'text/html' })
					res.end('<html><body>502 Bad Gateway</body></html>')
					return
				}
				answer({
					req,
					url,
					body: Buffer.concat(chunks),
					outOfCredits: noCredits,
					send,
					checked: (...emails) => checks.push(...emails.map((e) => e.toLowerCase())),
				})
			}
			if (delay > 0) setTimeout(respond, delay)
			else respond()
		})
	})
	await new Promise<void>((resolve) => server.listen(port ?? 0, '127.0.0.1', resolve))
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		checks,
		calls,
		setDelay: (ms) => void (delay = ms),
		rateLimitNext: (n, seconds = 1) => {
			limited = n
			retryAfter = seconds
		},
		malformedNext: (n) => void (malformed = n),
		setOutOfCredits: (on) => void (noCredits = on),
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections()
				server.close(() => resolve())
			}),
	}
}
