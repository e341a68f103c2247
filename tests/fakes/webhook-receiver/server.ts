// A webhook receiver, as an agency's would be: a real HTTP server that checks every delivery's
// Standard Webhooks signature with the `standardwebhooks` package's own verifier (the receiver
// side a developer would write from the README), against whichever of its secrets it is given.
// Knobs: the status it answers (per path), a delay before answering (a slow or hung receiver),
// a redirect. Every request is kept, with whether its signature verified and with which secret.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export type ReceivedWebhook = {
	path: string
	id: string
	timestamp: string
	signature: string
	body: string
	/** parsed body; null when the signature did not verify with any secret */
	payload: { id: string; type: string; timestamp: string; data: Record<string, unknown> } | null
	/** the secrets (by index in `secrets`) whose signature verified */
	verifiedWith: number[]
	receivedAt: number
}

export type WebhookReceiver = {
	url: string
	received: ReceivedWebhook[]
	/** the signing secrets the receiver knows (whsec_…); set as they are shown */
	secrets: string[]
	/** answer this status (default 200), or run a function per request */
	answer(status: number | ((request: ReceivedWebhook) => number)): void
	/** wait this long before answering */
	setDelay(ms: number): void
	/** answer 302 to another place */
	redirect(to: string | null): void
	close(): Promise<void>
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
	const received: ReceivedWebhook[] = []
	const secrets: string[] = []
	let status: number | ((request: ReceivedWebhook) => number) = 200
	let delay = 0
	let redirectTo: string | null = null
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = []
		req.on('data', (c: Buffer) => chunks.push(c))
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8')
			const headers = {
				'webhook-id': String(req.headers['webhook-id'] ?? ''),
				'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
				'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
			}
			const verifiedWith: number[] = []
			let payload: ReceivedWebhook['payload'] = null
			secrets.forEach((secret, i) => {
				try {
					payload = new Webhook(secret).verify(body, headers) as ReceivedWebhook['payload']
					verifiedWith.push(i)
				} catch {
					// not this secret's signature
				}
			})
			const request: ReceivedWebhook = {
				path: req.url ?? '/',
				id: headers['webhook-id'],
				timestamp: headers['webhook-timestamp'],
				signature: headers['webhook-signature'],
				body,
				payload,
				verifiedWith,
				receivedAt: Date.now(),
			}
			const reply = () => {
				if (res.destroyed) return
				if (redirectTo) {
					res.writeHead(302, { location: redirectTo }).end()
				} else {
					const code = typeof status === 'function' ? status(request) : status
					res.writeHead(code, { 'content-type': 'text/plain' }).end(`answered ${code}`)
				}
				// kept once answered: a request whose sender hung up first is not a delivery
				received.push(request)
			}
			if (delay > 0) setTimeout(reply, delay)
			else reply()
		})
	})
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
	const address = server.address() as AddressInfo
	return {
		url: `http://127.0.0.1:${address.port}`,
		received,
		secrets,
		answer: (s) => (status = s),
		setDelay: (ms) => (delay = ms),
		redirect: (to) => (redirectTo = to),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections()
				server.close(() => resolve())
			}),
	}
}
