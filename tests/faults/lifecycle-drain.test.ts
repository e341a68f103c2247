// Issue 40, point 8: a SIGTERM drain must not reset keep-alive connections. A response
// finished while draining says `Connection: close` and the server closes that connection
// after it, so a client never sends its next request into a socket the server is closing.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { expect, test } from 'vitest'
import { startServer } from './support/lifecycle.ts'

test('SIGTERM: a keep-alive request in flight gets Connection: close, and its connection ends cleanly', async () => {
	const app = await startServer({ DATABASE_URL: process.env.DATABASE_URL! })
	const { hostname, port } = new URL(app.url)
	const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
	// a first request opens the keep-alive connection the slow one then reuses
	const first = await new Promise<http.IncomingMessage>((resolve, reject) =>
		http.get({ host: hostname, port, path: '/healthz', agent }, resolve).on('error', reject),
	)
	first.resume()
	await new Promise((resolve) => first.on('end', resolve))
	expect(first.headers.connection).toBe('keep-alive')

	const email = `drain-${randomUUID().slice(0, 8)}@example.com`
	const body = JSON.stringify({ email, password: 'a-long-enough-password-1' })
	const request = http.request({
		host: hostname,
		port,
		agent,
		method: 'POST',
		path: '/auth/v1/signup',
		headers: {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(body),
			expect: '100-continue',
		},
	})
	let socketError: Error | null = null
	request.on('socket', (socket) => socket.on('error', (error) => (socketError = error)))
	const response = new Promise<http.IncomingMessage>((resolve, reject) => {
		request.on('response', resolve)
		request.on('error', reject)
	})
	await new Promise((resolve) => request.once('continue', resolve))
	request.write(body.slice(0, 12))
	app.child.kill('SIGTERM')
	await app.waitFor(/shutting down/)
	request.end(body.slice(12))

	const res = await response
	res.resume()
	await new Promise((resolve) => res.on('end', resolve))
	expect(res.statusCode).toBe(200)
	// the server says it closes this connection, and does: nothing is left to reset
	expect(res.headers.connection).toBe('close')
	await new Promise((resolve) =>
		res.socket.destroyed ? resolve(null) : res.socket.once('close', resolve),
	)
	expect(socketError).toBeNull()
	expect(await app.exited).toBe(0)
	agent.destroy()
}, 90_000)
