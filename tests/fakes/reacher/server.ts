// A local fake of Reacher (reacherhq/check-if-email-exists' HTTP server, self-hosted or the
// SaaS; reference/verification-deliverability-webhooks.md). It follows, and must be no
// stricter or looser than:
// - POST /v0/check_email {"to_email"} → 200 {input, is_reachable: safe|risky|invalid|unknown,
//   misc: {is_disposable, is_role_account}, mx: {accepts_mail, records}, smtp: {can_connect_smtp,
//   has_full_inbox, is_catch_all, is_deliverable, is_disabled}, syntax: {...}};
// - the SaaS's key in `Authorization` (401 without the right one), a self-hosted server's
//   shared secret in `x-reacher-secret`; either is accepted here;
// - fault knobs: slow answers (a check takes seconds), 429 with Retry-After, 200s that are not
//   JSON, no credits (the SaaS answers 429 {"error": "...quota..."}, UNCONFIRMED: a knob).
// A check counts (`checks`) only when its answer was written to a connection still open (a
// client that hung up first, e.g. a killed worker, never got it; a real provider may still
// bill such a check: at most the requests in flight at a kill).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { isRole, outcomeOf, type VerifyFakeKnobs } from '../verify-outcomes.ts'

export type FakeReacher = VerifyFakeKnobs & { url: string; apiKey: string }

function checkOf(email: string) {
	const outcome = outcomeOf(email)
	const reachable =
		outcome === 'valid'
			? 'safe'
			: outcome === 'catch_all' || outcome === 'risky'
				? 'risky'
				: outcome === 'invalid'
					? 'invalid'
					: outcome === 'disposable'
						? 'risky'
						: 'unknown'
	return {
		input: email,
		is_reachable: reachable,
		misc: {
			is_disposable: outcome === 'disposable',
			is_role_account: isRole(email),
			gravatar_url: null,
		},
		mx: { accepts_mail: outcome !== 'invalid', records: ['mx.example.com.'] },
		smtp: {
			can_connect_smtp: true,
			has_full_inbox: false,
			is_catch_all: outcome === 'catch_all',
			is_deliverable: outcome === 'valid',
			is_disabled: false,
		},
		syntax: {
			address: email,
			domain: email.split('@')[1],
			is_valid_syntax: true,
			username: email.split('@')[0],
		},
	}
}

export async function startFakeReacher(
	options: { apiKey?: string; port?: number } = {},
): Promise<FakeReacher> {
	const apiKey = options.apiKey ?? 'reacher-test-key-9012'
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
				// the client hung up before the answer (a killed worker): not a check it got
				if (res.destroyed || !res.socket || res.socket.destroyed || res.socket.readableEnded)
					return false
				res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
				res.end(JSON.stringify(body))
				return true
			}
			const answer = () => {
				if (limited > 0) {
					limited -= 1
					return send(429, { error: 'Too Many Requests' }, { 'Retry-After': String(retryAfter) })
				}
				if (malformed > 0) {
					malformed -= 1
					res.writeHead(200, { 'Content-Type': 'text/html' })
					return res.end('<html><body>502 Bad Gateway</body></html>')
				}
				if (url.pathname !== '/v0/check_email' || req.method !== 'POST')
					return send(404, { error: 'Not found' })
				if (req.headers.authorization !== apiKey && req.headers['x-reacher-secret'] !== apiKey)
					return send(401, { error: 'Unauthorized' })
				if (noCredits)
					return send(200, { error: 'You have used up your monthly quota of credits.' })
				let body: { to_email?: string }
				try {
					body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
				} catch {
					return send(400, { error: 'Invalid JSON' })
				}
				const email = body.to_email ?? ''
				if (send(200, checkOf(email))) checks.push(email.toLowerCase())
			}
			if (delay > 0) setTimeout(answer, delay)
			else answer()
		})
	})
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		apiKey,
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

if (import.meta.main) {
	const fake = await startFakeReacher({ port: Number(process.argv[2] ?? 0) })
	console.log(`fake Reacher at ${fake.url} (key ${fake.apiKey})`)
}
